ip link set lo up 2>/dev/null || ifconfig lo up
if ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1; then echo "ping answered"; else echo "ping dropped"; fi
