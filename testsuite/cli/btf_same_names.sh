#!/bin/sh
# btf_same_names.sh STAPX KERNEL_DIR: a module function whose name two of
# its symbols have (Debian 6.1's nfsd.ko: a static nfsd_open in stats.c
# and the global one in vfs.c), probed from the module's BTF alone. The
# kernel resolves "nfsd:nfsd_open" to the first symbol, so each must be
# placed by another, uniquely named symbol plus the distance; and as BTF
# does not say which of its two prototypes is which, a parameter is an
# error that says so. nfsd.ko is run-tests' copy, else taken from the
# cached linux-image .deb; exit 77 (skipped) without one.
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export STAPX_KERNEL_DIR=$kdir
mods=$(dirname "$stapx")/fixtures/debmods-$R
if [ ! -f "$mods/nfsd.ko" ]; then
  mods=$tmp
  deb=$(ls -1 "${XDG_CACHE_HOME:-$HOME/.cache}/stapx/debs/linux-image-${R}_"*_amd64.deb 2>/dev/null | tail -n1)
  [ -n "$deb" ] || exit 77
  dpkg-deb --fsys-tarfile "$deb" | tar -xO "./lib/modules/$R/kernel/fs/nfsd/nfsd.ko" >"$tmp/nfsd.ko" || exit 77
fi
status=0
fail() { echo "FAIL: $1"; status=1; }

# Two symbols of the name, as this check assumes.
n=$(readelf -sW "$mods/nfsd.ko" | awk '$4 == "FUNC" && $8 == "nfsd_open"' | wc -l)
[ "$n" = 2 ] || exit 77

out=$("$stapx" -r "$R" --debuginfo "$mods" -p3 -e 'probe module("nfsd").function("nfsd_open") { println(pp()) }' 2>&1)
at=$(printf '%s\n' "$out" | grep -o '\.symbol = "nfsd:[a-z_0-9]*", \.offset = [0-9]*' | sort -u)
[ "$(printf '%s\n' "$at" | grep -c .)" = 2 ] || fail "two kprobes: $out"
printf '%s\n' "$at" | grep -q '"nfsd:nfsd_open"' && fail "placed by the shared name: $at"
# Each anchor + offset is one of the two nfsd_open symbols.
printf '%s\n' "$at" | while read -r _ _ sym _ _ off; do
  sym=${sym#\"nfsd:}; sym=${sym%\",}
  base=$(readelf -sW "$mods/nfsd.ko" | awk -v s="$sym" '$4 == "FUNC" && $8 == s { print $2 }')
  want=$(printf '%016x' $((0x$base + off)))
  readelf -sW "$mods/nfsd.ko" | awk -v a="$want" '$2 == a && $8 == "nfsd_open"' | grep -q . ||
    echo "FAIL: $sym+$off is not an nfsd_open"
done | grep FAIL && status=1

out=$("$stapx" -r "$R" --debuginfo "$mods" -p2 -e 'probe module("nfsd").function("nfsd_open") { println($rqstp) }' 2>&1)
printf '%s\n' "$out" | grep -q "has 2 functions named nfsd_open whose BTF prototypes differ" ||
  fail "parameter of an ambiguous function: $out"
exit $status
