ip link set lo up
nc -l -p 5555 </dev/null >/dev/null &
# Until the listener is there (port 5555 = 0x15B3, state 0A = LISTEN).
until grep -qi ':15B3 [0-9A-F]*:0000 0A ' /proc/net/tcp6 /proc/net/tcp 2>/dev/null; do :; done
echo hello >message
nc 127.0.0.1 5555 <message
wait
nc 127.0.0.1 5556 </dev/null 2>/dev/null
exit 0
