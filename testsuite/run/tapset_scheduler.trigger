/bin/sleep 1
exit 0
