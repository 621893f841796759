exec ./process_syscall > /dev/null
