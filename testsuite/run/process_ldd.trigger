exec ./process_ldd > /dev/null
