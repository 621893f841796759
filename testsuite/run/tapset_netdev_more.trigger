ip link set lo up
ifconfig lo mtu 1400
ifconfig lo mtu 65536
ifconfig lo hw ether 02:11:22:33:44:55 2>/dev/null
cat /proc/net/dev >/dev/null
ping -c 1 127.0.0.1 >/dev/null
exit 0
