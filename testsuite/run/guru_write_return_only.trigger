exec ./guru_write_return_only
