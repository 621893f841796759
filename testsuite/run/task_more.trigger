# dd at nice 5 with descriptors 0-2, 3 (extra) and 4 (its input file).
exec 3</proc/version
renice -n 5 -p $$ >/dev/null
exec dd if=/proc/version of=/dev/null bs=1 count=1 2>/dev/null
