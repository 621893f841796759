exec ./syscall_prog_net
