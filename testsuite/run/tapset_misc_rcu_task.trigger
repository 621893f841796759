# A task is freed after an RCU grace period, some time after it exits: run
# dd until the script has seen one freed (stapx-run then ends this shell).
while :; do dd if=/dev/zero of=/dev/null count=1 2>/dev/null; done
