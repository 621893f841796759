#!/bin/sh
# list_labels.sh STAPX KERNEL_DIR: -l of kernel.function("vfs_*").label("*")
# from the guest kernel's DWARF: each line what stap 4.8 prints for the
# same vmlinux (labels of inlined copies and of ".cold" parts included),
# less stap's 'kernel.function("vfs_get_tree.cold").label("*")', which
# names no label. With --btf: an error saying labels need DWARF.
# Exit 77 (skipped) without the DWARF vmlinux in KERNEL_DIR (make deps).
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
[ -f "$kdir/$R/debug/vmlinux-$R" ] || exit 77
case $R in 6.1.*-amd64) ;; *) exit 77 ;; esac
status=0
got=$(STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -l 'kernel.function("vfs_*").label("*")' 2>&1)
want='kernel.function("vfs_copy_file_range@fs/read_write.c:1542").label("done")
kernel.function("vfs_dedupe_file_range@fs/remap_range.c:564").label("next_fdput")
kernel.function("vfs_dedupe_file_range@fs/remap_range.c:566").label("next_loop")
kernel.function("vfs_dedupe_file_range_compare@fs/remap_range.c:239").label("unlock")
kernel.function("vfs_dedupe_file_range_one@fs/remap_range.c:487").label("out_drop_write")
kernel.function("vfs_dup_fs_context@fs/fs_context.c:395").label("err_fc")
kernel.function("vfs_get_super@fs/super.c:1242").label("error")
kernel.function("vfs_getxattr@fs/xattr.c:439").label("nolsm")
kernel.function("vfs_iocb_iter_read@fs/read_write.c:826").label("out")
kernel.function("vfs_removexattr@fs/xattr.c:534").label("retry_deleg")
kernel.function("vfs_rename@fs/namei.c:4948").label("out")
kernel.function("vfs_setxattr@fs/xattr.c:307").label("retry_deleg")
kernel.function("vfs_statx@fs/stat.c:228").label("retry")
kernel.function("vfs_truncate@fs/open.c:113").label("put_write_and_out")
kernel.function("vfs_truncate@fs/open.c:115").label("mnt_drop_write_and_out")'
if [ "$got" != "$want" ]; then
  echo "FAIL: -l labels"
  printf '%s\n' "$want" >"${TMPDIR:-/tmp}/list_labels.want.$$"
  printf '%s\n' "$got" | diff -u "${TMPDIR:-/tmp}/list_labels.want.$$" -
  rm -f "${TMPDIR:-/tmp}/list_labels.want.$$"
  status=1
fi
got=$(STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" --btf -p2 -e 'probe kernel.function("vfs_statx").label("retry") { }' 2>&1)
case $got in
*"missing kernel debuginfo for kernel.function(...).label ("*"records no labels)"*) ;;
*) echo "FAIL: --btf label: $got"; status=1 ;;
esac
exit $status
