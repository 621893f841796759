# $1: process_running.stp's module. The program starts first and blocks
# reading a FIFO; stapx-run -x attaches to it; once the script says its
# probes are armed, the program gets its line and goes on.
mkfifo in
./process_running <in >prog.out &
pid=$!
exec 3>in
stapx-run -x "$pid" -o run.out "$1" 2>run.err &
run=$!
while ! grep -q '^armed$' run.out 2>/dev/null; do :; done
echo go >&3
exec 3>&-
wait "$pid"
echo "program: $?"
wait "$run"
echo "stapx-run: $?"
grep -v '^armed$' run.out
cat prog.out run.err
