exec ./process_vars > /dev/null
