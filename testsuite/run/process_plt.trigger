exec ./process_plt > /dev/null
