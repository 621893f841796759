exec ./tapset_task_limits
