nc -l -p 5555 </dev/null >/dev/null 2>&1 &
# Until the listener is there (port 5555 = 0x15B3, state 0A = LISTEN).
until grep -qi ':15B3 [0-9A-F]*:0000 0A ' /proc/net/tcp6 /proc/net/tcp 2>/dev/null; do :; done
nc 127.0.0.1 5555 </dev/null >/dev/null 2>&1
nc ::1 5556 </dev/null >/dev/null 2>&1
kill $! 2>/dev/null
wait
logger stapx-sockaddr 2>/dev/null
timeout 2 tftp -g -r foo 127.0.0.1 >/dev/null 2>&1
exit 0
