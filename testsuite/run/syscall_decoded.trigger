nc 127.0.0.1 9 </dev/null 2>/dev/null
sleep 0.01
ulimit -n 100
