exec ./process_dpath > /dev/null
