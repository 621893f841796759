for i in 1 2 3 4 5 6 7 8 9 10; do cat /proc/version > /dev/null; sleep 0.2; done
