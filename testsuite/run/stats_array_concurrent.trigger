burst() { i=0; while [ $i -lt 300 ]; do sync; i=$((i+1)); done; }
burst & burst & wait
