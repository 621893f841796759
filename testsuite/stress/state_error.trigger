p=/proc/systemtap/state_error
until [ "$(cat $p/ready)" = 2 ]; do [ -e /proc/systemtap/state_error ] || exit 1; done
echo error >$p/stop
