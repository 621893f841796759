p=/proc/systemtap/state_sigint
until [ "$(cat $p/ready)" = 2 ]; do [ -e /proc/systemtap/state_sigint ] || exit 1; done
kill -INT $(pidof stapx-run)
# Held (opening a FIFO no one writes) until stapx-run ends the session.
mkfifo hold
read -r _ <hold
