dd if=/dev/zero of=/dev/null bs=5678 count=1 2>/dev/null
