#!/bin/sh
# privilege.sh STAPX KERNEL_DIR: --privilege and --unprivileged, as stap's.
# A tapset function that is not marked unprivileged is refused at its
# definition (in the library, which a stage case cannot point at); a
# myproc-unprivileged one gets a check in front of its call; -g and a
# privilege level below stapdev do not go together; a bad level is named.
set -u
stapx=$1
fail() { printf '%s\n' "$*"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

out=$("$stapx" -p2 --privilege=stapusr -e 'probe begin { println(pid(), kernel_long(0)) }' 2>&1) &&
  fail "kernel_long accepted with --privilege=stapusr: $out"
printf '%s\n' "$out" | grep -q "^semantic error: function may not be used when --privilege=stapusr is specified: identifier 'kernel_long' at .*/memory.stp:[0-9]*:10$" ||
  fail "unexpected error for kernel_long: $out"
[ "$(printf '%s\n' "$out" | grep -c '^semantic error')" = 1 ] || fail "pid() refused too: $out"

# set_*_arg needs no -g (stap 4.8's rule), but is not for unprivileged users.
out=$("$stapx" -p2 --privilege=stapusr -e 'probe begin { set_int_arg(1, 0) }' 2>&1) &&
  fail "set_int_arg accepted with --privilege=stapusr: $out"
printf '%s\n' "$out" | grep -q "^semantic error: function may not be used when --privilege=stapusr is specified: identifier 'set_int_arg' at .*/registers.stp:[0-9]*:10$" ||
  fail "unexpected error for set_int_arg: $out"

# process.* is for unprivileged users too (in their own processes, which
# the module checks at each hit), with the process's $vars; the kernel's
# points are not. --dump-probe-types lists what the level allows.
prog=$(command -v true)
"$stapx" -p2 --privilege=stapusr -e "probe process(\"$prog\").begin { println(pid()) }" >"$tmp/p.out" 2>&1 ||
  fail "process.begin refused with --privilege=stapusr: $(cat "$tmp/p.out")"
"$stapx" -p3 --privilege=stapusr -e "probe process(\"$prog\").begin { println(pid()) }" >"$tmp/p.c" 2>&1 &&
  grep -q '^#define STPX_UNPRIVILEGED 1$' "$tmp/p.c" || fail "no STPX_UNPRIVILEGED in the module's C"
types=$("$stapx" --privilege=stapusr --dump-probe-types) || fail "--dump-probe-types failed"
printf '%s\n' "$types" | grep -qx 'process(string).function(string)' || fail "stapusr types lack process points"
printf '%s\n' "$types" | grep -q '^kernel\.\|^kprobe\.\|^module(' && fail "stapusr types list kernel points: $types"

"$stapx" -p3 --privilege=stapusr -e 'probe begin { println(user_int(0)) }' >"$tmp/u.c" 2>&1 ||
  fail "user_int refused: $(cat "$tmp/u.c")"
grep -q '_stpx_is_myproc()' "$tmp/u.c" || fail "no myproc check before user_int"
"$stapx" -p3 -e 'probe begin { println(user_int(0)) }' >"$tmp/d.c" 2>&1 || fail "user_int refused as stapdev"
grep -q 'if (unlikely(!_stpx_is_myproc()))' "$tmp/d.c" && fail "myproc check without --privilege"

out=$("$stapx" -p2 -g --privilege=stapsys -e 'probe begin { }' 2>&1) && fail "-g with stapsys accepted"
printf '%s\n' "$out" | grep -qxF "stapx: You can't specify -g and --privilege=stapsys together." ||
  fail "unexpected -g message: $out"
out=$("$stapx" -p2 --privilege=root -e 'probe begin { }' 2>&1) && fail "--privilege=root accepted"
printf '%s\n' "$out" | grep -qxF "stapx: Invalid argument 'root' for --privilege." || fail "unexpected message: $out"
exit 0
