#!/bin/sh
# debuginfod.sh STAPX KERNEL_DIR: with no DWARF of its own for a kernel, and
# DEBUGINFOD_URLS naming a debuginfod server (Debian's, on 127.0.0.1,
# serving that kernel's -dbg vmlinux), stapx fetches the vmlinux by the
# build ID in the kernel's vmlinuz, resolves kernel.function("vfs_read")
# $count, and the module runs in a guest of that kernel (--vm). Then, the
# server stopped: the client's cache serves it; with an empty cache, a
# one-line error naming the server, and BTF instead. A kernel module
# found without DWARF (stripped) gets its DWARF the same way, by the
# module's own build ID. Skipped (77) without
# debuginfod, curl, or a kernel in KERNEL_DIR whose DWARF the system does
# not already have.
set -u
stapx=$1
kdir=$(cd "$2" 2>/dev/null && pwd) || { echo "skipped: no $2"; exit 77; }
for t in debuginfod curl python3; do
	command -v $t >/dev/null 2>&1 || { echo "skipped: no $t"; exit 77; }
done
rel=
for r in $(cat "$kdir/release" 2>/dev/null) $(ls "$kdir"); do
	[ -f "$kdir/$r/debug/vmlinux-$r" ] && [ -f "$kdir/$r/boot/vmlinuz-$r" ] && [ -d "$kdir/$r/build" ] || continue
	[ -e "/usr/lib/debug/boot/vmlinux-$r" ] || [ -e "/usr/lib/debug/lib/modules/$r/vmlinux" ] && continue
	rel=$r
	break
done
[ -n "$rel" ] || { echo "skipped: no kernel in $kdir without system DWARF"; exit 77; }
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# The kernel as stapx sees it here: image, kbuild tree, BTF, no DWARF.
mkdir -p "$work/k/$rel" "$work/srv"
for d in boot build btf lib; do
	[ -e "$kdir/$rel/$d" ] && ln -s "$kdir/$rel/$d" "$work/k/$rel/$d"
done
echo "$rel" >"$work/k/release"
ln -s "$kdir/$rel/debug/vmlinux-$rel" "$work/srv/vmlinux-$rel"
# A module built with the kernel's -g, served whole; stapx finds it
# stripped (objcopy --strip-debug keeps the build ID).
mkdir "$work/mod" "$work/inst"
cat >"$work/mod/dbgtiny.c" <<'C'
#include <linux/module.h>
noinline int dbgtiny_add(int first, int second) { return first + second; }
EXPORT_SYMBOL(dbgtiny_add);
MODULE_LICENSE("GPL");
C
echo "obj-m := dbgtiny.o" >"$work/mod/Kbuild"
make -C "$kdir/$rel/build" M="$work/mod" CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$work/mod/log" 2>&1 ||
	{ fail "cannot build the module: $(tail -5 "$work/mod/log")"; exit 1; }
cp "$work/mod/dbgtiny.ko" "$work/srv/"
objcopy --strip-debug "$work/mod/dbgtiny.ko" "$work/inst/dbgtiny.ko"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
debuginfod -L -F -p "$port" -d "$work/db.sqlite" -t0 -g0 "$work/srv" >"$work/server.log" 2>&1 &
server=$!
# Ready once it has indexed the file (its metrics say so; polled).
id=$(readelf -n "$kdir/$rel/debug/vmlinux-$rel" | sed -n 's/.*Build ID: //p' | head -n1)
tries=0
until curl -s "$url/metrics" | grep -q '^scanned_files_total{source="file"} [2-9]'; do
	tries=$((tries + 1))
	kill -0 $server 2>/dev/null && [ $tries -lt 600 ] || { fail "server not ready: $(tail -3 "$work/server.log")"; exit 1; }
	sleep 0.1
done

run() {	# run CACHE ARGS...: stapx with only the server for DWARF
	cache=$1
	shift
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$work/$cache STAPX_KERNEL_DIR=$work/k STAPX_DEBUGINFO= \
		"$stapx" -r "$rel" "$@"
}
script='probe kernel.function("vfs_read") { if ($count > 0) { println("vfs_read count > 0"); exit() } }'
run cache -p2 -v -e "$script" >"$work/p2" 2>"$work/p2.err" || fail "-p2: $(cat "$work/p2.err")"
grep -q "^Debug information: DWARF from $work/cache/$id/debuginfo" "$work/p2.err" ||
	fail "not the fetched DWARF: $(grep 'Debug information' "$work/p2.err")"
grep -q '^kernel.function("vfs_read@fs/read_write.c:[0-9]*")' "$work/p2" || fail "no source line: $(cat "$work/p2")"
out=$(run cache --vm -e "$script" 2>"$work/vm.err")
[ "$out" = "vfs_read count > 0" ] || fail "--vm: '$out' $(tail -5 "$work/vm.err")"

# The module: its DWARF from the server, by its build ID.
mod='probe module("dbgtiny").function("dbgtiny_add") { println($first + $second) }'
run cache -p2 -v --debuginfo "$work/inst" -e "$mod" >"$work/mod.out" 2>"$work/mod.err" ||
	fail "module: $(cat "$work/mod.err")"
# (libdwfl asks the servers itself: the client's cache has it now.)
modid=$(readelf -n "$work/inst/dbgtiny.ko" | sed -n 's/.*Build ID: //p' | head -n1)
[ -s "$work/cache/$modid/debuginfo" ] || fail "module: nothing fetched for build ID $modid"
grep -q '^module("dbgtiny").function("dbgtiny_add@' "$work/mod.out" || fail "module: $(cat "$work/mod.out")"

# The server gone: the client's cache still has it.
kill $server
wait $server 2>/dev/null
server=
run cache -p2 -v -e "$script" >/dev/null 2>"$work/again.err" || fail "from the cache: $(cat "$work/again.err")"
grep -q "^Debug information: DWARF from $work/cache/" "$work/again.err" || fail "not from the cache: $(cat "$work/again.err")"
# An empty cache and no server: said in one line, and BTF does.
run empty -p2 -v -e "$script" >/dev/null 2>"$work/dead.err" || fail "BTF fallback: $(cat "$work/dead.err")"
grep -q "^stapx: debuginfod: no vmlinux-$rel (build ID $id) from $url: " "$work/dead.err" ||
	fail "no error naming the server: $(cat "$work/dead.err")"
grep -q "^Debug information: BTF" "$work/dead.err" || fail "no BTF fallback: $(cat "$work/dead.err")"
exit $status
