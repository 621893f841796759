/bin/sleep 10 &
/bin/sleep 1
kill -USR1 $!
wait
exit 0
