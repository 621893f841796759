# A shell calls getppid() when it starts ($PPID).
sh -c 'exit 0'
exec sh -c 'echo $PPID >/dev/null'
