exec ./process_thread_exit
