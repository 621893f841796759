grep -o "stapx ftrace test" /sys/kernel/debug/tracing/trace >&2
