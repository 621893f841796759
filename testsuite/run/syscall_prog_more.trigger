exec ./syscall_prog_more
