ip link set lo up
nslookup -type=a test 127.0.0.1 >/dev/null 2>&1
exit 0
