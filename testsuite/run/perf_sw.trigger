dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
