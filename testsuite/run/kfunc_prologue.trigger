cat /proc/version >/dev/null
