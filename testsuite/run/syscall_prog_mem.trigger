exec ./syscall_prog_mem
