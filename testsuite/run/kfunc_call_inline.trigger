dd if=/dev/zero of=/dev/null bs=2345 count=1 2>/dev/null
