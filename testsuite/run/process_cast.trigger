exec ./process_cast
