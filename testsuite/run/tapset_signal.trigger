/bin/sleep 10 &
# Until the child runs sleep.
until [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ]; do :; done
kill -USR1 $!
wait
exit 0
