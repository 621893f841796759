printf abcdefghij > /tmp/stapx_ten
dd if=/tmp/stapx_ten of=/dev/null bs=777 count=1 2>/dev/null
