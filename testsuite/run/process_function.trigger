exec ./process_function 5 > /dev/null
