printf 'hello\n' > /tmp/stapx-entry-value
dd if=/tmp/stapx-entry-value of=/dev/null bs=64 2>/dev/null
