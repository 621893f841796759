# $1: flight_recorder.stp's module, built with -F.
mod=$1
name=$(basename "$mod" .ko)
masked() { sed "s/$name/NAME/g" "$@"; }

# -F -o: the session goes on in the background; stapx-run prints its PID.
stapx-run -F -o bg.out "$mod" >pid 2>bg.err
echo "-F -o: status $?, $(grep -c '^[0-9][0-9]*$' pid) PID"
pid=$(cat pid)
stapx-run -L | masked
# One stapx-run per module: a second one is refused.
stapx-run -A "$name" 2>second.err
echo "second -A: status $? $(masked second.err)"
kill -TERM "$pid"
while kill -0 "$pid" 2>/dev/null; do :; done
cat bg.out bg.err
stapx-run -L | masked

# -F alone: detach, the probes go on, the buffer keeps the latest.
stapx-run -F "$mod" >f.out 2>f.err
echo "-F: status $?"
cat f.out
masked f.err
stapx-run -L | masked
# All on CPU 0, so that its buffer alone takes the 1.2 MB (spread over
# both CPUs, one of them may keep its first record).
taskset 1 sh -c 'i=0
while [ $i -lt 300 ]; do
	cat flight-marker 2>/dev/null
	i=$((i + 1))
done'
# The script has exited (n == 300): -A reads that, runs the end probe and
# unloads.
stapx-run -A "$name" >a.out 2>a.err
echo "-A: status $? $(masked a.err)"
grep -v '^open' a.out
grep '^open' a.out | awk '{ if (NR == 1) first = $2; else if ($2 <= last) bad++; last = $2 }
	END { print (first > 1 ? "oldest overwritten" : "first " first) ", last " last ", " bad + 0 " out of order" }'
stapx-run -L
# -F again and -A before the buffer wraps: what the first stapx-run
# printed is not printed again.
stapx-run -F "$mod" >f2.out 2>f2.err
echo "-F again: status $?, $(grep -c '^begin' f2.out) begin"
taskset 1 sh -c 'for i in 1 2 3; do cat flight-marker 2>/dev/null; done'
stapx-run -T 1 -A "$name" >a2.out 2>a2.err
echo "-A before the wrap: status $?, $(grep -c '^begin' a2.out) begin, $(grep -c '^open' a2.out) open, $(grep '^end' a2.out)"
stapx-run -A "$name" 2>gone.err
echo "-A, unloaded: status $? $(masked gone.err)"
stapx-run -A 'bad/name' 2>&1
echo "-A bad/name: status $?"
exit 0
