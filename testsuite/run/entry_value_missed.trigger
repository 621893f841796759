# Readers blocked inside vfs_read hold the watcher's instances.
for i in 1 2 3 4 5 6 7 8; do sleep 3 | dd bs=1 count=1 of=/dev/null 2>/dev/null & done
sleep 1
dd if=/proc/version of=/dev/null bs=64 2>/dev/null
wait
exit 0
