/bin/sleep 10 &
/bin/sleep 1
kill -USR2 $!
wait
trap 'echo trapped >/dev/null' USR1
kill -USR1 $$
exit 0
