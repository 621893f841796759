dd if=/dev/zero of=/dev/null bs=1 count=1 2>/dev/null
