# The victim: a sleep that outlives any wait before the kill.
/bin/sleep 1000 &
# Until the child runs sleep.
until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do :; done
kill -USR1 $!
wait
exit 0
