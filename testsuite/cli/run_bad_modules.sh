#!/bin/sh
# run_bad_modules.sh STAPX: stapx-run refuses, before the kernel sees it,
# any file that is not a whole stapx module for the running kernel, with
# one line and exit status 1. The "modules" are relocatable objects gcc
# makes here, with the .modinfo strings each case needs.
set -u
run=$(dirname "$1")/stapx-run
command -v gcc >/dev/null 2>&1 || exit 77
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
release=$(uname -r)

# module NAME STRING...: NAME.ko with each STRING in .modinfo
module() {
  name=$1
  shift
  : >"$dir/$name.c"
  i=0
  for s in "$@"; do
    printf '__attribute__((section(".modinfo"), used)) static const char s%d[] = "%s";\n' \
      $i "$s" >>"$dir/$name.c"
    i=$((i + 1))
  done
  printf 'int init_module(void) { return 0; }\n' >>"$dir/$name.c"
  gcc -c -o "$dir/$name.ko" "$dir/$name.c" || { echo "FAIL: gcc $name"; exit 1; }
}

# expect MESSAGE ARGS...: stapx-run ARGS exits 1 with MESSAGE, one line
# (with closed=1, its stdout closed)
closed=0
expect() {
  want=$1
  shift
  if [ $closed = 1 ]; then
    out=$("$run" "$@" 2>&1 >&-)
  else
    out=$("$run" "$@" 2>&1)
  fi
  rc=$?
  lines=$(printf '%s\n' "$out" | wc -l)
  if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ] || ! printf '%s\n' "$out" | grep -qF "$want"; then
    echo "FAIL: stapx-run $*: exit $rc, wanted 1 and one line with '$want'; got:"
    printf '%s\n' "$out"
    status=1
  fi
}

module plain
module foreign "license=GPL" "vermagic=$release SMP mod_unload"
module old "stapx=0" "vermagic=$release SMP mod_unload"
module other "stapx=3" "vermagic=$release-other SMP mod_unload"
module good "stapx=3" "vermagic=$release SMP mod_unload"
head -c 100 "$dir/other.ko" >"$dir/truncated.ko"
head -c 1000 /dev/zero >"$dir/zeros.ko"

expect "Couldn't open module '$dir/missing.ko': No such file or directory" "$dir/missing.ko"
expect "is not a kernel module (not a regular file)" "$dir"
expect "is not a kernel module (not an ELF file)" "$dir/zeros.ko"
expect "'$dir/truncated.ko' is truncated or corrupt (100 bytes" "$dir/truncated.ko"
expect "is not a kernel module (no .modinfo section)" "$dir/plain.ko"
expect "is not a stapx module (no stapx= in its .modinfo)" "$dir/foreign.ko"
expect "speaks stapx protocol 0, this stapx-run 3" "$dir/old.ko"
expect "module release mismatch ($release-other vs $release)" "$dir/other.ko"
expect "Couldn't open output file '$dir/no/such/out'" -o "$dir/no/such/out" "$dir/good.ko"
closed=1
expect "standard output is closed: give -o FILE" "$dir/good.ko"
exit $status
