p=/proc/systemtap/state_cmd
until [ "$(cat $p/ready)" = 2 ]; do [ -e /proc/systemtap/state_cmd ] || exit 1; done
