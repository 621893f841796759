#!/bin/sh
# kernel_data.sh STAPX KERNEL_DIR: kernel.data("SYMBOL") finds the symbol in
# the kernel's symbol table at pass 2, and a length x86 cannot watch (over
# 8 bytes) is refused there too; stap 4.8 finds both only when the module
# starts and the watchpoint fails to register. Exit 77 (skipped) without
# the DWARF vmlinux.
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
[ -f "$kdir/$R/debug/vmlinux-$R" ] || exit 77
status=0
out=$(STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -p2 -e 'probe kernel.data("jiffies").write { println(1) }' 2>&1) ||
  { echo "FAIL: jiffies: $out"; status=1; }
out=$(STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -p2 -e 'probe kernel.data("no_such_symbol_x").rw { println(1) }' 2>&1)
rc=$?
if [ $rc -ne 1 ] || ! printf '%s\n' "$out" | grep -qF "no kernel data symbol 'no_such_symbol_x' to watch"; then
  echo "FAIL: missing symbol: exit $rc: $out"
  status=1
fi
out=$(STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -p2 -e 'probe kernel.data(0x1000).length(16).write { println(1) }' 2>&1)
rc=$?
if [ $rc -ne 1 ] || ! printf '%s\n' "$out" | grep -qF "needs a length of 1 to 8 bytes"; then
  echo "FAIL: length 16: exit $rc: $out"
  status=1
fi
exit $status
