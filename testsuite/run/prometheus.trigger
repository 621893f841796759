sort /proc/systemtap/*/__prometheus
