exec ./process_ustack > /dev/null
