#!/bin/sh
# module_list.sh STAPX KERNEL_DIR: -l and -L of module("m").function points:
# .exported on the fixture module (its DWARF; the functions with global
# linkage, as stap 4.8 lists them for the same .ko), and the functions of
# Debian's brd.ko from its split BTF (it has no DWARF), also with --btf and
# from a brd.ko.xz. The fixture module is the one run-tests built (in
# BUILD/fixtures) from the current source, else built here; brd.ko is
# run-tests' copy, else taken from the cached linux-image .deb. Exit 77
# (skipped) when neither can be had.
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
src=$(dirname "$0")/../fixtures/kmod
fixtures=$(dirname "$stapx")/fixtures
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export STAPX_KERNEL_DIR=$kdir

fixture=
for d in "$fixtures"/kmod-*/; do
  if [ -f "$d/stapx_fixture.ko" ] && cmp -s "$d/stapx_fixture.c" "$src/stapx_fixture.c"; then
    fixture=$d
    break
  fi
done
if [ -z "$fixture" ]; then
  for kb in "/lib/modules/$R/build" "/usr/src/linux-headers-$R"; do
    [ -f "$kb/Makefile" ] || continue
    mkdir "$tmp/kmod" && cp "$src"/* "$tmp/kmod/" &&
      make -s -C "$kb" M="$tmp/kmod" modules >"$tmp/make.log" 2>&1 && fixture=$tmp/kmod
    break
  done
fi

brd=$fixtures/debmods-$R/brd.ko
if [ ! -f "$brd" ]; then
  brd=
  deb=$(ls -1 "${XDG_CACHE_HOME:-$HOME/.cache}/stapx/debs/linux-image-${R}_"*_amd64.deb 2>/dev/null | tail -n1)
  if [ -n "$deb" ]; then
    mkdir "$tmp/brd"
    dpkg-deb --fsys-tarfile "$deb" | tar -xO "./lib/modules/$R/kernel/drivers/block/brd.ko" >"$tmp/brd/brd.ko" &&
      brd=$tmp/brd/brd.ko
  fi
fi
[ -n "$fixture$brd" ] || exit 77

status=0
check() {  # check NAME WANT GOT
  [ "$2" = "$3" ] && return
  printf '%s\n' "$2" >"$tmp/want"
  printf '%s\n' "$3" >"$tmp/got"
  echo "$1:"
  diff -u "$tmp/want" "$tmp/got"
  status=1
}

if [ -n "$fixture" ]; then
  got=$("$stapx" -r "$R" --debuginfo "$fixture" -l 'module("stapx_fixture").function("*").exported' 2>&1 |
        sed 's|@[^"]*/stapx_fixture\.c:|@stapx_fixture.c:|')
  check "fixture -l .exported" 'module("stapx_fixture").function("sfx_bitfields@stapx_fixture.c:82").exported
module("stapx_fixture").function("sfx_classify@stapx_fixture.c:110").exported
module("stapx_fixture").function("sfx_deref@stapx_fixture.c:94").exported
module("stapx_fixture").function("sfx_ints@stapx_fixture.c:58").exported
module("stapx_fixture").function("sfx_point_sum@stapx_fixture.c:88").exported
module("stapx_fixture").function("sfx_record@stapx_fixture.c:64").exported
module("stapx_fixture").function("sfx_split@stapx_fixture.c:124").exported
module("stapx_fixture").function("sfx_string@stapx_fixture.c:70").exported
module("stapx_fixture").function("sfx_union@stapx_fixture.c:76").exported' "$got"
  got=$("$stapx" -r "$R" --debuginfo "$fixture" -L 'module("stapx_fixture").function("sfx_ints").exported' 2>&1 |
        sed 's|@[^"]*/stapx_fixture\.c:|@stapx_fixture.c:|')
  check "fixture -L .exported" \
    'module("stapx_fixture").function("sfx_ints@stapx_fixture.c:58").exported $a:int $b:long int $c:unsigned char $d:short int' "$got"
fi

if [ -n "$brd" ]; then
  mkdir -p "$tmp/xz" && xz -c "$brd" >"$tmp/xz/brd.ko.xz" || exit 1
  want='module("brd").function("brd_cleanup")
module("brd").function("brd_do_bvec") $brd:struct brd_device* $page:struct page* $len:unsigned int $off:unsigned int $opf:blk_opf_t $sector:sector_t
module("brd").function("brd_exit")
module("brd").function("brd_free_pages") $brd:struct brd_device*
module("brd").function("brd_probe") $dev:dev_t
module("brd").function("brd_rw_page") $bdev:struct block_device* $sector:sector_t $page:struct page* $op:enum req_op
module("brd").function("brd_submit_bio") $bio:struct bio*'
  for btf in "" --btf; do
    check "brd $btf -L" "$want" "$("$stapx" -r "$R" $btf --debuginfo "$brd" -L 'module("brd").function("*")' 2>&1)"
  done
  check "brd.ko.xz -L" "$want" "$("$stapx" -r "$R" --debuginfo "$tmp/xz" -L 'module("brd").function("*")' 2>&1)"
  check "brd -L .return" \
    'module("brd").function("brd_do_bvec").return $return:int $brd:struct brd_device* $page:struct page* $len:unsigned int $off:unsigned int $opf:blk_opf_t $sector:sector_t' \
    "$("$stapx" -r "$R" --btf --debuginfo "$brd" -L 'module("brd").function("brd_do_bvec").return' 2>&1)"
  # BTF does not know a function's locals: the error says where they are.
  got=$("$stapx" -r "$R" --debuginfo "$brd" -p2 -e 'probe module("brd").function("brd_submit_bio") { println($bvec) }' 2>&1)
  printf '%s\n' "$got" | grep -q "^semantic error: unable to find parameter 'bvec' of brd_submit_bio in BTF (alternatives: \$bio); local variables need the kernel's DWARF: install linux-image-$R-dbg" || {
    echo "brd local: unexpected output:"
    printf '%s\n' "$got"
    status=1
  }
fi
exit $status
