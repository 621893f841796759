exec ./process_mark
