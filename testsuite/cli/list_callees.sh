#!/bin/sh
# list_callees.sh STAPX KERNEL_DIR: -l of .callee("C"), .callees and
# .callees(N) from the guest kernel's DWARF, against what stap 4.8 prints
# for the same vmlinux. stap lists fewer of the inlined callees than the
# DWARF has (none whose copy has no single entry address, it seems:
# fsnotify_access, get_current, new_sync_read in vfs_read; fdput_pos in
# ksys_read); stapx lists every inlined copy. The lines stap prints must
# all be there, and the others are checked as stapx's own.
# Exit 77 (skipped) without the DWARF vmlinux in KERNEL_DIR (make deps).
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
[ -f "$kdir/$R/debug/vmlinux-$R" ] || exit 77
case $R in 6.1.*-amd64) ;; *) exit 77 ;; esac
list() { STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -l "$1" 2>&1; }
status=0
check() {  # check POINT WANT: stapx -l POINT prints exactly WANT
  got=$(list "$1")
  if [ "$got" != "$2" ]; then
    echo "FAIL: -l $1"
    printf 'want:\n%s\ngot:\n%s\n' "$2" "$got"
    status=1
  fi
}
check 'kernel.function("vfs_read").callee("add_rchar")' \
'kernel.function("vfs_read@fs/read_write.c:450").callee("add_rchar@include/linux/sched/xacct.h:12")'
check 'kernel.function("vfs_read").callees' \
'kernel.function("vfs_read@fs/read_write.c:450").callee("__access_ok@include/asm-generic/access_ok.h:31")
kernel.function("vfs_read@fs/read_write.c:450").callee("add_rchar@include/linux/sched/xacct.h:12")
kernel.function("vfs_read@fs/read_write.c:450").callee("fsnotify_access@include/linux/fsnotify.h:313")
kernel.function("vfs_read@fs/read_write.c:450").callee("get_current@arch/x86/include/asm/current.h:13")
kernel.function("vfs_read@fs/read_write.c:450").callee("inc_syscr@include/linux/sched/xacct.h:22")
kernel.function("vfs_read@fs/read_write.c:450").callee("new_sync_read@fs/read_write.c:379")'
# Depth 3: the callees' own inlined callees, named after them (stap's
# three lines first).
check 'kernel.function("ksys_read").callees(3)' \
'kernel.function("fdget_pos@include/linux/file.h:73").callee("__to_fd@include/linux/file.h:58")
kernel.function("fdput_pos@include/linux/file.h:78").callee("fdput@include/linux/file.h:44")
kernel.function("ksys_read@fs/read_write.c:602").callee("fdget_pos@include/linux/file.h:73")
kernel.function("ksys_read@fs/read_write.c:602").callee("fdput_pos@include/linux/file.h:78")
kernel.function("ksys_read@fs/read_write.c:602").callee("file_ppos@fs/read_write.c:597")'
# A callee that is not inlined there: no match, as in stap.
got=$(STAPX_KERNEL_DIR=$kdir "$stapx" -r "$R" -p2 -e 'probe kernel.function("vfs_read").callee("rw_verify_area") {}' 2>&1)
case $got in *"semantic error: no match"*) ;; *) echo "FAIL: callee not inlined: $got"; status=1 ;; esac
exit $status
