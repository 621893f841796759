# $1: the module. Each run ends when its -c command does.
ok=0
i=0
while [ $i -lt 100 ]; do
	stapx-run -c true "$1" >out 2>err && [ ! -s out ] && [ ! -s err ] && ok=$((ok + 1))
	[ -s err ] && cat err
	i=$((i + 1))
done
grep -q "^${1%.ko} " /proc/modules && echo "still loaded"
echo "$ok of 100 runs ended cleanly"
