p=/proc/systemtap/state_exit
until [ "$(cat $p/ready)" = 2 ]; do [ -e /proc/systemtap/state_exit ] || exit 1; done
echo exit >$p/stop
