# $1: output_modes.stp's module, run with each output mode in turn.
mod=$1

# -T: no exit() without -x; the session ends after a second.
stapx-run -T 1 "$mod" >t.out 2>t.err
echo "-T 1: status $? $(cat t.err)"
cat t.out

# -o with strftime(3) conversions.
stapx-run -T 1 -o 'out-%Y.txt' "$mod" 2>o.err
echo "-o out-%Y.txt: status $? $(cat o.err)"
ls out-*.txt | sed "s/$(date +%Y)/YEAR/"
cat out-$(date +%Y).txt

# -b: a file per CPU with its records, merged back by stapx-merge.
# Both CPUs busy, so that each takes profile ticks (an idle one need not).
spin() { while :; do :; done; }
spin & s1=$!
spin & s2=$!
stapx-run -b -x 1 "$mod" >b.out 2>b.err
kill $s1 $s2
echo "-b: status $? $(cat b.err), stdout $(wc -c <b.out) bytes"
ls stpd_cpu*
stapx-merge stpd_cpu* >merged
echo "merged: status $?"
head -1 merged
grep line merged | sort
tail -1 merged
# Each CPU's lines in the order it printed them.
for c in 0 1; do grep "^cpu$c " merged | tr '\n' ' '; echo; done
stapx-merge -v stpd_cpu0 | grep -c '^\[0,[0-9]*,[0-9]*\]cpu0 line'
stapx-merge -o m2 stpd_cpu1 stpd_cpu0 && cmp merged m2 && echo "-o: same"
head -c 10 stpd_cpu0 >cut
stapx-merge cut >/dev/null 2>cut.err
echo "truncated: status $? $(cat cut.err)"

# -S 1,2: files of at most 1 MB, the oldest removed past two.
stapx-run -S 1,2 -o rot -x 2 "$mod" 2>s.err
echo "-S 1,2: status $? $(cat s.err)"
ls rot*
for f in rot.*; do
	size=$(wc -c <$f)
	[ "$size" -le 1048576 ] || echo "$f: $size bytes"
done
cat rot.1 rot.2 | tail -1
# Every line of the last two files, none torn, none missing (timer.ms
# handlers on two CPUs may flush in another order than they counted).
cat rot.1 rot.2 | grep -v end | sort -n -k1 -k2 | awk '{ if (length($0) != 999) bad++; key = $1 * 4 + $2;
	if (NR > 1 && key != last + 1) gaps++; last = key }
	END { print NR, "lines,", bad + 0, "torn,", gaps + 0, "gaps" }'
# The same 2.6 MB into a pipe: records of 4 KB are written from the relay
# buffers as they are (shorter ones are copied); all there, none torn.
stapx-run -x 2 "$mod" 2>p.err | grep -v -e begin -e end | sort -n -k1 -k2 |
	awk '{ if (length($0) != 999) bad++; key = $1 * 4 + $2;
	if (NR > 1 && key != last + 1) gaps++; last = key }
	END { print NR, "lines,", bad + 0, "torn,", gaps + 0, "gaps" }'
echo "pipe: $(cat p.err)"
stapx-run -S 1 "$mod" 2>&1
echo "-S without -o: status $?"
exit 0
