dd if=/dev/zero of=/dev/null bs=4567 count=1 2>/dev/null
