dd if=/dev/zero of=/dev/null bs=1234 count=2 2>/dev/null
