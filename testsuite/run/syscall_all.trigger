echo hello >/dev/null
read line <syscall_all.trigger
exit 0
