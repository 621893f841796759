dd if=/dev/zero of=/dev/ram0 bs=4096 count=3 oflag=direct conv=notrunc 2>/dev/null
dd if=/dev/ram0 of=/dev/null bs=4096 count=2 iflag=direct 2>/dev/null
