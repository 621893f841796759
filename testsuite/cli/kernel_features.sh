#!/bin/sh
# kernel_features.sh STAPX KERNEL_DIR: the kernel feature probes
# (runtime-c/autoconf/) answer as each kernel's API is, and the runtime
# builds both ways. For every kernel in KERNEL_DIR with a kbuild tree
# (installed, or unpacked by fetch-kernel: make deps-matrix), a module with
# a uprobe builds, and its stpx_autoconf.h says whether uprobe_register()
# returns a handle, as that tree's <linux/uprobes.h> declares it. Skipped
# (77) unless kernels on both sides of the change are there (6.1, 6.12).
set -u
stapx=$1
kdir=$(cd "$2" 2>/dev/null && pwd) || { echo "skipped: no $2"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prog=$(command -v true)
with=0 without=0 fail=0
for rel in $(ls "$kdir" 2>/dev/null); do
	[ -f "$kdir/$rel/boot/vmlinuz-$rel" ] || continue
	tree=
	for d in "/lib/modules/$rel/build" "$kdir/$rel/build"; do
		[ -f "$d/Makefile" ] && { tree=$d; break; }
	done
	[ -n "$tree" ] || continue
	# What the tree declares: the answer the probe must give.
	# (Debian's tree includes the -common one, which has the headers.)
	common=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$tree/Makefile" | head -n1)
	if grep -q 'struct uprobe \*uprobe_register(' "${common:-$tree}/include/linux/uprobes.h" 2>/dev/null; then
		want=1
	else
		want=0
	fi
	out=$(cd "$work" && "$stapx" -p4 -k -r "$tree" -m feat_probe \
		-e "probe process(\"$prog\").function(\"*\")? { next } probe begin { exit() }" 2>&1)
	keep=$(printf '%s\n' "$out" | sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p')
	if [ -z "$keep" ] || [ ! -f "$keep/feat_probe.ko" ]; then
		echo "FAIL $rel: the module did not build"
		printf '%s\n' "$out" | tail -20
		fail=1
		continue
	fi
	got=0
	grep -q '^#define STPX_HAVE_UPROBE_REGISTER_HANDLE 1' "$keep/stpx_autoconf.h" && got=1
	rm -rf "$keep"
	if [ "$got" != "$want" ]; then
		echo "FAIL $rel: STPX_HAVE_UPROBE_REGISTER_HANDLE is $got, the tree says $want"
		fail=1
	fi
	[ "$want" = 1 ] && with=$((with + 1)) || without=$((without + 1))
	echo "ok $rel (uprobe_register handle: $got)"
done
[ $fail = 0 ] || exit 1
if [ $with = 0 ] || [ $without = 0 ]; then
	echo "skipped: needs kernels with and without the new uprobe API in $kdir (make deps-matrix)"
	exit 77
fi
exit 0
