#!/bin/sh
# process_points.sh STAPX KERNEL_DIR: process("PATH").function(...) points
# at pass 2 against programs built here: -L lists a function's source
# position and variables from the program's DWARF (stap 4.8's -L prints
# the same line for this program), a glob lists the DWARF's functions, a
# program without DWARF is probed through its dynamic symbols, process(PID),
# -x, .library(LIB) and .function(ADDRESS) resolve as stap 4.8 does, @var
# reads a program's global, and the errors name what is missing. Exit 77
# (skipped) without a C compiler.
set -u
stapx=$1
command -v gcc >/dev/null || exit 77
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cat >"$dir/prog.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) long work(long n, const char *tag) { return n * 2 + (tag[0] == 'x'); }
int main(int argc, char **argv) {
  long r = work(argc, argv[0]);
  return (int)r;
}
C
cat >"$dir/lib.c" <<'C'
int lib_entry(int x) { return x + 1; }
C
gcc -g -O2 -o "$dir/prog" "$dir/prog.c" || exit 1
gcc -O2 -shared -fPIC -s -o "$dir/lib.so" "$dir/lib.c" || exit 1
status=0
fail() { echo "FAIL: $1"; status=1; }
check_error() {  # NAME SCRIPT TEXT
  out=$("$stapx" -p2 -u -e "$2" 2>&1)
  rc=$?
  if [ $rc -ne 1 ] || ! printf '%s\n' "$out" | grep -qF -- "$3"; then
    fail "$1: exit $rc: $out"
  fi
}

out=$("$stapx" -L "process(\"$dir/prog\").function(\"work\")" 2>&1)
want="process(\"$dir/prog\").function(\"work@$dir/prog.c:2\") \$n:long int \$tag:char const*"
[ "$out" = "$want" ] || fail "-L work: got '$out', want '$want'"

out=$("$stapx" -l "process(\"$dir/prog\").function(\"*\")" 2>&1)
printf '%s\n' "$out" | grep -qxF "process(\"$dir/prog\").function(\"main@$dir/prog.c:3\")" ||
  fail "-l *: no main in: $out"

# Without a PATH: the -c command's program, as stap takes it.
out=$("$stapx" -p2 -u -c "$dir/prog arg" -e 'probe process.function("work") { println($n) }' 2>&1 | grep '^process')
[ "$out" = "process(\"$dir/prog\").function(\"work@$dir/prog.c:2\") /* <- process.function(\"work\") */" ] ||
  fail "-c: $out"
check_error "no -c" 'probe process.function("work") { }' \
  "unspecified process probe is invalid without a -c COMMAND or -x PID"
out=$("$stapx" -p2 -u -c "$dir/prog | cat" -e 'probe process.function("work") { }' 2>&1)
printf '%s\n' "$out" | grep -qF "invalid -c command for unspecified process probe" || fail "-c with a pipe: $out"

# A source line, with the variables in scope there (stap 4.8's -L too).
out=$("$stapx" -L "process(\"$dir/prog\").statement(\"main@prog.c:5\")" 2>&1)
[ "$out" = "process(\"$dir/prog\").statement(\"main@$dir/prog.c:5\") \$argc:int \$argv:char** \$r:long int" ] ||
  fail "statement: $out"

# Relative to the current directory, shown absolute.
out=$(cd "$dir" && "$stapx" -l 'process("./prog").function("work")' 2>&1)
[ "$out" = "process(\"$dir/prog\").function(\"work@$dir/prog.c:2\")" ] || fail "relative path: $out"

# A glob in PATH: each matching program or library (the C source is left out).
out=$("$stapx" -l "process(\"$dir/pro*\").function(\"work\")" 2>&1)
[ "$out" = "process(\"$dir/prog\").function(\"work@$dir/prog.c:2\")" ] || fail "glob path: $out"

# No DWARF: the dynamic symbol table's functions, by name.
out=$("$stapx" -p2 -u -e "probe process(\"$dir/lib.so\").function(\"lib_entry\") { println(pp()) }" 2>&1) ||
  fail "stripped library: $out"
printf '%s\n' "$out" | grep -qF "process(\"$dir/lib.so\").function(\"lib_entry\")" || fail "stripped library pp: $out"

check_error "no function" "probe process(\"$dir/prog\").function(\"nosuch\") { }" "semantic error: no match"
check_error "no file" "probe process(\"$dir/nosuch\").function(\"work\") { }" "no match (cannot find $dir/nosuch"
check_error "glob, no file" "probe process(\"$dir/nothing*\").function(\"work\") { }" \
  "no match (no x86-64 program or library matches $dir/nothing*)"
check_error "not ELF" "probe process(\"$dir/prog.c\").function(\"work\") { }" "is not an ELF file"
check_error "no variable" "probe process(\"$dir/prog\").function(\"work\") { println(\$nosuch) }" \
  "unable to find local 'nosuch'"
# Static probes (sys/sdt.h, from systemtap-sdt-dev): -L as stap 4.8
# prints them, and the errors.
cat >"$dir/marks.c" <<'C'
#include <sys/sdt.h>
int main(int argc, char **argv) { STAP_PROBE2(app, two, argc, argv); STAP_PROBE(app, none); return 0; }
C
if gcc -O2 -o "$dir/marks" "$dir/marks.c" 2>/dev/null; then
  out=$("$stapx" -L "process(\"$dir/marks\").mark(\"*\")" 2>&1)
  want="process(\"$dir/marks\").mark(\"none\")
process(\"$dir/marks\").mark(\"two\") \$arg1:long \$arg2:long"
  [ "$out" = "$want" ] || fail "-L marks: got '$out', want '$want'"
  out=$("$stapx" -l "process(\"$dir/marks\").provider(\"app\").mark(\"t*\")" 2>&1)
  [ "$out" = "process(\"$dir/marks\").provider(\"app\").mark(\"two\")" ] || fail "-l provider: $out"
  check_error "mark \$arg3" "probe process(\"$dir/marks\").mark(\"two\") { println(\$arg3) }" \
    "unable to find local 'arg3'"
  check_error "no mark" "probe process(\"$dir/marks\").mark(\"nosuch\") { }" "semantic error: no match"
  check_error "no provider" "probe process(\"$dir/marks\").provider(\"other\").mark(\"two\") { }" \
    "semantic error: no match"
else
  echo "process_points: no sys/sdt.h (systemtap-sdt-dev): marks not checked"
fi
# Process events: the points as stap 4.8 names them.
out=$("$stapx" -p2 -u -e "probe process.begin, process(\"$dir/prog\").thread.end, process(42).end { }" 2>&1 |
  sed -n 's| /\*.*||p' | grep '^process')
want="process.begin
process(\"$dir/prog\").thread.end
process(42).end"
[ "$out" = "$want" ] || fail "process events: got '$out', want '$want'"
check_error "pid 0" "probe process(0).begin { }" "probe point 'process(PID)' needs a process id"

# An optional point that names nothing is left out.
"$stapx" -p2 -u -e "probe process(\"$dir/prog\").function(\"nosuch\") ?, begin { }" >/dev/null 2>&1 ||
  fail "optional point"
# .function(ADDRESS): the function whose code holds the address (stap 4.8
# resolves it the same way).
addr=$(nm "$dir/prog" | awk '$3 == "work" { print $1 }')
out=$("$stapx" -l "process(\"$dir/prog\").function(0x$addr)" 2>&1)
[ "$out" = "process(\"$dir/prog\").function(\"work@$dir/prog.c:2\")" ] || fail "function(ADDRESS): $out"
# .statement(ADDRESS): that address itself, its variables from the DWARF
# scope there (stap 4.8 -p2 prints the same point for this program).
addr=$(printf '%x' $((0x$addr)))
out=$("$stapx" -p2 -u -e "probe process(\"$dir/prog\").statement(0x$addr) { println(\$n) }" 2>&1 | grep '^process')
case $out in "process(\"$dir/prog\").statement(0x$addr) /* <- "*) ;; *) fail "statement(ADDRESS): $out" ;; esac
# An address inside a line-table row is refused in stap 4.8's words (with
# .nearest too), naming the row's start.
mid=$(printf '%x' $((0x$addr + 1)))
for nearest in "" .nearest; do
  out=$("$stapx" -p2 -e "probe process(\"$dir/prog\").statement(0x$mid)$nearest { println(1) }" 2>&1) &&
    fail "statement(ADDRESS)$nearest inside a row accepted: $out"
  [ "$(printf '%s\n' "$out" | head -1)" = \
    "semantic error: address 0x$mid does not match the beginning of a statement (try 0x$addr)" ] ||
    fail "statement(ADDRESS)$nearest inside a row: $out"
done

# process(PID): the program that process runs (/proc/PID/exe), here a
# program that waits; and with -x, a point without a PATH.
cat >"$dir/wait.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) int pause_here(void) { return pause(); }
int main(void) { return pause_here(); }
C
gcc -g -O2 -o "$dir/waiter" "$dir/wait.c" || exit 1
"$dir/waiter" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
out=$("$stapx" -p2 -u -e "probe process($pid).function(\"pause_here\") { }" 2>&1 | grep '^process')
[ "$out" = "process(\"$dir/waiter\").function(\"pause_here@$dir/wait.c:2\") /* <- process($pid).function(\"pause_here\") */" ] ||
  fail "process(PID): $out"
out=$("$stapx" -p2 -u -x $pid -e 'probe process.function("pause_here") { }' 2>&1 | grep '^process')
[ "$out" = "process(\"$dir/waiter\").function(\"pause_here@$dir/wait.c:2\") /* <- process.function(\"pause_here\") */" ] ||
  fail "-x PID: $out"
# .library(LIB): a library the program needs, by its name or a glob.
out=$("$stapx" -p2 -u -e "probe process(\"$dir/waiter\").library(\"libc.so*\").function(\"pause\") { }" 2>&1 |
  grep -c '^process("/.*libc.so.6").function(')
[ "$out" = 1 ] || fail ".library: $out"
check_error "no library" "probe process(\"$dir/waiter\").library(\"libnosuch*\").function(\"f\") { }" \
  "no match ($dir/waiter needs no library that matches libnosuch*)"
check_error "no process" 'probe process(4194000).function("main") { }' \
  "no match (no process 4194000 on this machine (cannot read /proc/4194000/exe))"
# A library named where this system does not keep it (stap's examples say
# /lib*/libc.so.6; Debian keeps libc in /lib/x86_64-linux-gnu): the
# loader's library of that name, with a warning.
if ! ls /lib*/libc.so.6 >/dev/null 2>&1; then
  out=$("$stapx" -p2 -u -e 'probe process("/lib*/libc.so.6").function("getpid") { }' 2>&1)
  printf '%s\n' "$out" | grep -q "^WARNING: no file is /lib\*/libc.so.6; probing /.*/libc.so.6, where the dynamic loader finds" ||
    fail "library elsewhere, warning: $out"
  printf '%s\n' "$out" | grep -q '^process("/.*/libc.so.6").function(' || fail "library elsewhere: $out"
fi
# A label: -l names it with .label("L") at the label's line, as stap 4.8
# lists it (for this program too: "f@lbl.c:6").
cat >"$dir/lbl.c" <<'C'
volatile int sink;
__attribute__((noinline)) int f(int x) {
  if (x > 2)
    goto out;
  sink += x;
out:
  return sink;
}
int main(int argc, char **argv) { (void)argv; return f(argc); }
C
gcc -g -O2 -o "$dir/lbl" "$dir/lbl.c" || exit 1
out=$("$stapx" -l "process(\"$dir/lbl\").function(\"f\").label(\"out\")" 2>&1)
[ "$out" = "process(\"$dir/lbl\").function(\"f@$dir/lbl.c:6\").label(\"out\")" ] || fail "label -l: $out"
# .callees: the functions inlined into f, at depth 2 those inlined into
# them, each named after its caller as for kernel.function. (stap 4.8
# runs out of memory on this listing here.)
cat >"$dir/cal.c" <<'C'
volatile int sink;
static inline __attribute__((always_inline)) int inner(int x) { return x + sink; }
static inline __attribute__((always_inline)) int outer(int x) { return inner(x) * 2; }
__attribute__((noinline)) int f(int x) { return outer(x) + 1; }
int main(int argc, char **argv) { (void)argv; return f(argc); }
C
gcc -g -O2 -o "$dir/cal" "$dir/cal.c" || exit 1
out=$("$stapx" -l "process(\"$dir/cal\").function(\"f\").callees(2)" 2>&1)
want="process(\"$dir/cal\").function(\"f@$dir/cal.c:4\").callee(\"outer@$dir/cal.c:3\")
process(\"$dir/cal\").function(\"outer@$dir/cal.c:3\").callee(\"inner@$dir/cal.c:2\")"
[ "$out" = "$want" ] || fail "callees(2) -l: $out"
out=$("$stapx" -l "process(\"$dir/cal\").function(\"f\").callee(\"inner\")" 2>&1)
case $out in *"semantic error: no match"*) ;; *) fail "callee(inner) is not f's own: $out" ;; esac

# @var("name", "PATH"): a program's global, read where its DWARF says. A
# position-independent program's (gcc's default) is not at its link-time
# address: refused, as for its static variables as $var.
cat >"$dir/var.c" <<'C'
long counter = 5;
__attribute__((noinline)) long bump(long n) { return counter += n; }
int main(int argc, char **argv) { (void)argv; return (int)bump(argc); }
C
gcc -g -O2 -no-pie -o "$dir/var" "$dir/var.c" || exit 1
gcc -g -O2 -fPIE -pie -o "$dir/varpie" "$dir/var.c" || exit 1
out=$("$stapx" -p2 -u -e "probe process(\"$dir/var\").function(\"bump\") { println(@var(\"counter@var.c\", \"$dir/var\")) }" 2>&1) ||
  fail "@var in a program: $out"
check_error "@var in a PIE" "probe process(\"$dir/varpie\").function(\"bump\") { println(@var(\"counter\", \"$dir/varpie\")) }" \
  "reading a variable at a fixed address of a position-independent program"
check_error "@var unknown" "probe process(\"$dir/var\").function(\"bump\") { println(@var(\"nope\", \"$dir/var\")) }" \
  "unresolved @var() expression (no global 'nope' in $dir/var)"
# A $name where the file has no DWARF (lib.so is stripped): stap 4.8's
# words, naming the file.
check_error "\$var without DWARF" "probe process(\"$dir/lib.so\").function(\"lib_entry\") { println(\$x) }" \
  "debuginfo scope not found for module '$dir/lib.so', cannot resolve context variable [man error::dwarf]"
check_error "@var without DWARF" "probe begin { println(@var(\"x\", \"$dir/lib.so\")) }" \
  "unresolved @var() expression: no debug information for '$dir/lib.so'"
exit $status
