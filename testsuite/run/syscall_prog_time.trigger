exec ./syscall_prog_time
