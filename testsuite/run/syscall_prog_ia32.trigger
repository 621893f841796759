exec ./syscall_prog_ia32
