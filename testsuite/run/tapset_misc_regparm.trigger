dd if=/dev/zero of=/dev/null bs=4321 count=1 2>/dev/null
