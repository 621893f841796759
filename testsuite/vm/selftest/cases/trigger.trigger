echo 1 > /sys/kernel/debug/trigger/poke
echo 1 > /sys/kernel/debug/trigger/poke
