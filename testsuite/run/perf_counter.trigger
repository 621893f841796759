exec ./perf_counter
