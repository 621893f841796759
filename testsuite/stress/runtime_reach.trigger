until [ "$(cat /proc/systemtap/runtime_reach/ready)" = 2 ]; do [ -e /proc/systemtap/runtime_reach ] || exit 1; done
