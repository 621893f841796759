trap '' USR2
trap ': trapped' USR1
kill -USR2 $$
kill -USR1 $$
exit 0
