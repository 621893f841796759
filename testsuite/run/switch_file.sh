# $1: switch_file.stp's module, run with -o, with -S and on stdout.
mod=$1

stapx-run -o out "$mod" 2>o.err
echo "-o out: status $? $(cat o.err)"
for f in $(ls out*); do
	echo "== $f"
	cat "$f"
done

# -S 1,2: FILE.0 first; three files made, the last two kept.
stapx-run -S 1,2 -o rot "$mod" 2>s.err
echo "-S 1,2: status $? $(cat s.err)"
for f in $(ls rot*); do
	echo "== $f"
	cat "$f"
done

# -b: every CPU's file moves on at the same point of the output; the
# files of one number merge into that part of it.
stapx-run -b -o bulk "$mod" 2>b.err
echo "-b: status $? $(cat b.err)"
for k in "" '\.1' '\.2'; do
	echo "== bulk_cpuN$k" | tr -d '\\'
	stapx-merge $(ls | grep -E "^bulk_cpu[0-9]+$k\$")
done

# Standard output: nothing changes.
stapx-run "$mod" 2>&1
echo "stdout: status $?"
