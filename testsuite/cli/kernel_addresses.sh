#!/bin/sh
# kernel_addresses.sh STAPX KERNEL_DIR: probe points that name a kernel
# address, against stap 4.8's -p2 on the same vmlinux: kernel.function(A)
# is the function whose code holds A (its .return too), pp() the address
# as written; kernel.statement(A) must be where a line-table row begins
# (stap's message names the row's start), unless .absolute; -p2's "<-"
# shows the addresses in hex. Exit 77 (skipped) without the DWARF vmlinux.
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
V=$kdir/$R/debug/vmlinux-$R
[ -f "$V" ] || exit 77
fail() { printf '%s\n' "$*"; exit 1; }
entry=$(nm "$V" | sed -n 's/^\([0-9a-f]*\) T vfs_read$/\1/p')
[ -n "$entry" ] || fail "no vfs_read in $V"
# (entry + 4 on its low 32 bits: the shell's arithmetic stops at 2^63.)
inside=${entry%????????}$(printf '%08x' $((0x${entry#????????} + 4)))
run() { STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -p2 "$@" 2>&1; }

out=$(run -e "probe kernel.function(0x$inside) { println(\$count) }" | grep '<-')
[ "$out" = "kernel.function(0x$inside) /* <- kernel.function(0x$inside) */" ] || fail "function(ADDR): $out"
out=$(run -e "probe kernel.function(0x$inside).return { println(\$return) }" | grep '<-')
[ "$out" = "kernel.function(0x$inside).return /* <- kernel.function(0x$inside).return */" ] ||
  fail "function(ADDR).return: $out"
# The same function as by name: its parameters are there.
out=$(run -e "probe kernel.function(0x$inside) { println(\$file, \$buf, \$count, \$pos) }") ||
  fail "function(ADDR) \$vars: $out"

out=$(run -e "probe kernel.statement(0x$inside) { println(1) }") && fail "statement inside a row accepted: $out"
first=$(printf '%s\n' "$out" | head -1)
[ "$first" = "semantic error: address 0x$inside does not match the beginning of a statement (try 0x$entry)" ] ||
  fail "statement inside a row: $out"
# .nearest: the same rule, and pp() without it (stap 4.8's -p2).
out=$(run -e "probe kernel.statement(0x$inside).nearest { println(1) }") && fail ".nearest inside a row accepted: $out"
out=$(run -e "probe kernel.statement(0x$entry).nearest { println(1) }" | grep '<-')
[ "$out" = "kernel.statement(0x$entry) /* <- kernel.statement(0x$entry).nearest */" ] || fail ".nearest: $out"
out=$(run -g -e "probe kernel.statement(0x$inside).absolute { println(1) }" | grep '<-')
[ "$out" = "kernel.statement(0x$inside).absolute /* <- kernel.statement(0x$inside).absolute */" ] ||
  fail "statement(ADDR).absolute: $out"
exit 0
