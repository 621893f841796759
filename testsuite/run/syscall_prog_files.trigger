exec ./syscall_prog_files
