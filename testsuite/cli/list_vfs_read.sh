#!/bin/sh
# list_vfs_read.sh STAPX KERNEL_DIR: -l and -L of kernel.function("vfs_read")
# and its .return, from the guest kernel's DWARF and (--btf) from its BTF.
# The DWARF lines are what stap 4.8 prints for the same vmlinux. Exit 77
# (skipped) without the DWARF vmlinux in KERNEL_DIR (make deps).
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
[ -f "$kdir/$R/debug/vmlinux-$R" ] || exit 77
got=$(for btf in "" --btf; do
  for opt in -l -L; do
    for p in 'kernel.function("vfs_read")' 'kernel.function("vfs_read").return'; do
      echo "# $btf $opt $p"
      STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" $btf $opt "$p" 2>&1 || echo "exit $?"
    done
  done
done)
want='#  -l kernel.function("vfs_read")
kernel.function("vfs_read@fs/read_write.c:450")
#  -l kernel.function("vfs_read").return
kernel.function("vfs_read@fs/read_write.c:450").return
#  -L kernel.function("vfs_read")
kernel.function("vfs_read@fs/read_write.c:450") $file:struct file* $buf:char* $count:size_t $pos:loff_t*
#  -L kernel.function("vfs_read").return
kernel.function("vfs_read@fs/read_write.c:450").return $return:ssize_t $file:struct file* $buf:char* $count:size_t $pos:loff_t*
# --btf -l kernel.function("vfs_read")
kernel.function("vfs_read")
# --btf -l kernel.function("vfs_read").return
kernel.function("vfs_read").return
# --btf -L kernel.function("vfs_read")
kernel.function("vfs_read") $file:struct file* $buf:char* $count:size_t $pos:loff_t*
# --btf -L kernel.function("vfs_read").return
kernel.function("vfs_read").return $return:ssize_t $file:struct file* $buf:char* $count:size_t $pos:loff_t*'
[ "$got" = "$want" ] && exit 0
printf '%s\n' "$want" >"${TMPDIR:-/tmp}/list_vfs_read.want.$$"
printf '%s\n' "$got" | diff -u "${TMPDIR:-/tmp}/list_vfs_read.want.$$" - 
rm -f "${TMPDIR:-/tmp}/list_vfs_read.want.$$"
exit 1
