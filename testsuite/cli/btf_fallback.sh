#!/bin/sh
# btf_fallback.sh STAPX KERNEL_DIR: without --btf, when no DWARF exists for
# the target release, kernel.function points and their parameters resolve
# from the kernel's BTF by themselves, and -v names that source.
# Exit 77 (skipped) without the guest kernel's BTF in KERNEL_DIR.
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
btf=$kdir/$R/btf/vmlinux-$R
[ -f "$btf" ] || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# A release no debug vmlinux is installed for anywhere; the only thing
# $STAPX_DEBUGINFO offers for it is BTF (the guest kernel's).
fake=0.0.0-stapx-btf-only
mkdir -p "$tmp/di/btf" "$tmp/kernel"
ln -s "$(realpath "$btf")" "$tmp/di/btf/vmlinux-$fake"
out=$(STAPX_KERNEL_DIR=$tmp/kernel STAPX_DEBUGINFO=$tmp/di "$stapx" -p2 -v -r $fake \
      -e 'probe kernel.function("vfs_read") { println($count + $file->f_pos) }' 2>&1)
status=$?
want="Debug information: BTF from $tmp/di/btf/vmlinux-$fake"
if [ $status -ne 0 ] || ! printf '%s\n' "$out" | grep -qxF "$want"; then
  printf 'expected exit 0 and the line\n  %s\ngot exit %d:\n%s\n' "$want" $status "$out"
  exit 1
fi
