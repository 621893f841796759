d=$(echo /proc/systemtap/*)
cat $d/status
echo hello > $d/status
cat $d/status
echo -n "big lines: "; wc -l < $d/sub/dir/big
tail -n 1 $d/sub/dir/big
cat $d/command
echo anything > $d/writeonly
cat $d/writeonly 2>/dev/null || echo "writeonly: not readable"
ls -l $d/status $d/command $d/writeonly $d/sub/dir/big | awk '{ print $1, $NF }' | sed "s|$d/||"
