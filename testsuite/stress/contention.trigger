until [ "$(cat /proc/systemtap/contention/ready)" = 4 ]; do [ -e /proc/systemtap/contention ] || exit 1; done
