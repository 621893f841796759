ip link set lo up
# The listener's stdin is empty: it shuts its side down at once. The
# client's stdin is a file, always ready, so it sends before it can see
# that (with a pipe from echo, it could see the listener's end first and
# leave without sending).
nc -l -p 5555 </dev/null >/dev/null &
# Until the listener is there (port 5555 = 0x15B3, state 0A = LISTEN).
until grep -qi ':15B3 [0-9A-F]*:0000 0A ' /proc/net/tcp6 /proc/net/tcp 2>/dev/null; do :; done
echo hello >message
nc 127.0.0.1 5555 <message
wait
