#!/bin/sh
# run_options.sh STAPX KERNEL_DIR: pass 5 gives stapx-run the output
# options (-o, -b, -S, -T) as it was given them, and -s sizes the module's
# relay buffer. A copy of stapx sits next to a stand-in stapx-run that
# prints its arguments (stapx takes the stapx-run beside it); the module
# is built for the guest kernel (skipped, 77, without its kbuild tree).
set -u
stapx=$1
kdir=$2
rel=$(cat "$kdir/release" 2>/dev/null) || { echo "skipped: no kernel in $kdir"; exit 77; }
tree=
for d in "/lib/modules/$rel/build" "$kdir/$rel/build"; do
	[ -f "$d/Makefile" ] && { tree=$d; break; }
done
[ -n "$tree" ] || { echo "skipped: no kbuild tree for $rel"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$stapx" "$work/stapx"
printf '#!/bin/sh\necho "stapx-run $*" | sed "s|[^ ]*/\\([^/ ]*\\.ko\\)|\\1|"\n' >"$work/stapx-run"
chmod +x "$work/stapx-run"
status=0
# expect WANT ARGS...: stapx ARGS runs stapx-run with arguments WANT
expect() {
	want=$1
	shift
	got=$(STAPX_KERNEL_DIR=$kdir "$work/stapx" -r "$tree" -m runopts "$@" 2>&1)
	if [ "$got" != "$want" ]; then
		echo "FAIL: stapx $*"
		echo "  want: $want"
		echo "  got:  $got"
		status=1
	fi
}
script='probe begin { exit() }'
expect "stapx-run -o out-%H.txt -b -S 2,3 -T 5 runopts.ko" -o out-%H.txt -b -S 2,3 -T 5 -e "$script"
expect "stapx-run -b -T 1 runopts.ko" -T 1 -b -e "$script"
# -s 3: 48 sub-buffers of 64 KiB per CPU, in the C that pass 3 writes.
STAPX_KERNEL_DIR=$kdir "$work/stapx" -r "$tree" -p3 -s 3 -e "$script" |
	grep -q '^#define STPX_RELAY_N_SUBBUFS 48$' || { echo "FAIL: -s 3: no STPX_RELAY_N_SUBBUFS 48"; status=1; }
exit $status
