# A burst of 300 sync() calls pinned to each of the guest's two CPUs.
burst() { taskset -c "$1" sh -c 'i=0; while [ $i -lt 300 ]; do sync; i=$((i+1)); done'; }
burst 0 & burst 1 & wait
