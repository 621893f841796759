i=0; while [ $i -lt 50 ]; do sync; i=$((i+1)); done
