./tapset_proc_mem_pid
