dd if=/dev/zero of=/dev/null bs=1234 count=1 2>/dev/null
