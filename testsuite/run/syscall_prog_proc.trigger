exec ./syscall_prog_proc
