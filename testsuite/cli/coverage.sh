#!/bin/sh
# coverage.sh STAPX: -q counts what pass 2 kept in a SQLite database per
# kernel release, in the table and at the places stap 4.8's -q uses
# (checked with stap -q -p2 on Debian 12: probe points at their first
# character, type 1; functions at their name, type 2; globals at their
# name, type 4). Functions and globals nothing uses are not counted.
set -u
stapx=$1
status=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/q.stp" <<'STP'
function f(x) { return x + 1 }
function unused() { return 2 }
global g
probe timer.s(1) { g = f(g); printf("%d %s\n", g, execname()) }
probe end { println(pid()) }
STP
for run in 1 2; do
  XDG_CACHE_HOME=$work/cache "$stapx" -q -p2 "$work/q.stp" >/dev/null 2>"$work/err" ||
    { echo "FAIL: stapx -q -p2 (run $run):"; cat "$work/err"; exit 1; }
done
db=$(ls "$work"/cache/stapx/coverage/*.db 2>/dev/null)
[ -n "$db" ] || { echo "FAIL: no database under $work/cache/stapx/coverage"; exit 1; }
got=$(sqlite3 "$db" "select line, col, type, name, parent, compiled, executed from counts
                      where file = '$work/q.stp' order by line, col")
want='1|10|2|f||2|0
3|8|4|g||2|0
4|7|1|timer.s(1)||2|0
5|7|1|end||2|0'
if [ "$got" != "$want" ]; then
  echo "FAIL: the script's rows; want:"
  echo "$want"
  echo "got:"
  echo "$got"
  status=1
fi
# The library functions it called, at their definitions.
for fn in execname pid; do
  n=$(sqlite3 "$db" "select compiled from counts where type = 2 and name = '$fn' and file like '%/context.stp'")
  [ "$n" = 2 ] || { echo "FAIL: library function $fn counted '$n' times, want 2"; status=1; }
done
exit $status
