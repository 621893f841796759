exec ./process_write
