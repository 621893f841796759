dd if=/dev/zero of=/dev/ram0 bs=4096 count=1 oflag=direct conv=notrunc 2>/dev/null
