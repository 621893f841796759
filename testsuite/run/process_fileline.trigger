exec ./process_fileline > /dev/null
