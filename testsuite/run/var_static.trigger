echo 4321 > /proc/sys/kernel/threads-max
