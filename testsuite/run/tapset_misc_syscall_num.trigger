dd if=/dev/zero of=/dev/null bs=1 count=3 2>/dev/null
