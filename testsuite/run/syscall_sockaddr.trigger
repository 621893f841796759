nc -l -p 5555 </dev/null >/dev/null 2>&1 &
sleep 0.5
nc 127.0.0.1 5555 </dev/null >/dev/null 2>&1
nc ::1 5556 </dev/null >/dev/null 2>&1
kill $! 2>/dev/null
wait
logger stapx-sockaddr 2>/dev/null
timeout 2 tftp -g -r foo 127.0.0.1 >/dev/null 2>&1
exit 0
