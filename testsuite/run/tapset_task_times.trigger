exec ./tapset_task_times
