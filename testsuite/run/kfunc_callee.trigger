printf '%0100d' 0 >/tmp/hundred
exec dd if=/tmp/hundred of=/dev/null bs=1000 2>/dev/null
