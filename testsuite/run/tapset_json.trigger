d=$(echo /proc/systemtap/*)
cat $d/metadata.json
cat $d/data.json
cat $d/data.json | grep -c reads
