echo stapx-write-test >/dev/null
read line <syscall_read_write.trigger
exit 0
