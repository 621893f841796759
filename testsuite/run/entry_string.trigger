printf 'hello\n' > /tmp/stapx-entry-string
dd if=/tmp/stapx-entry-string of=/dev/null bs=64 2>/dev/null
