# A user 'nobody' for busybox su, and a busy process of that user on each
# CPU, so that the timer's tick lands in one whichever CPU it runs on.
mkdir -p /etc
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
busy='i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done'
taskset -c 0 su -s /bin/sh nobody -c "$busy" &
taskset -c 1 su -s /bin/sh nobody -c "$busy" &
# Until they are done; a tick lands in one long before.
wait
