/bin/false
exit 0
