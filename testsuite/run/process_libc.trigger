exec ./process_libc > /dev/null
