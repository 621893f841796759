./hot_probes &
until [ "$(cat /proc/systemtap/hot_probes/ready)" = 10 ]; do [ -e /proc/systemtap/hot_probes ] || exit 1; done
kill $!
