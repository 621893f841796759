exec ./process_events
