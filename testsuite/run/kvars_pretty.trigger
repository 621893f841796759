dd if=/dev/zero of=/dev/null bs=3456 count=1 2>/dev/null
