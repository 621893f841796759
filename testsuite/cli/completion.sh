#!/bin/sh
# completion.sh STAPX: completion/stapx (bash) completes each program's
# options from its help, -l points from stapx's probe types and aliases,
# option values, and files by kind. Skipped (77) without bash.
set -u
command -v bash >/dev/null 2>&1 || exit 77
dir=$(cd "$(dirname "$1")" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)/completion/stapx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/d"
: >"$work/d/one.stp"
: >"$work/d/two.txt"
: >"$work/d/mod.ko"
# complete FUNCTION WORD...: the completions of the last WORD, sorted, on
# one line
complete_words() {
	bash -c '. "$1"; f=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		"$f"; printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " "' sh "$src" "$@"
}
status=0
expect() {	# expect WANT FUNCTION WORD...
	want=$1
	shift
	got=$(cd "$work" && complete_words "$@")
	if [ "$got" != "$want" ]; then
		echo "FAIL: $*"
		echo "  want: $want"
		echo "  got:  $got"
		status=1
	fi
}
expect "--skip-badvars " _stapx "$dir/stapx" --sk
expect "--privilege --prologue-searching " _stapx "$dir/stapx" --pr
expect "syscall.openat syscall.openat.return " _stapx "$dir/stapx" -l syscall.openat
expect "kernel.function( " _stapx "$dir/stapx" -L kernel.func
expect "stapsys " _stapx "$dir/stapx" --privilege = staps
expect "never " _stapx "$dir/stapx" --prologue-searching = n
expect "host " _stapx "$dir/stapx" --remote-prefix = h
expect "--remote --remote-prefix " _stapx "$dir/stapx" --rem
expect "d/one.stp " _stapx "$dir/stapx" d/
expect "-A -F -L -S -T -b -c -h -o -v -x " _stapx_run "$dir/stapx-run" -
expect "d/mod.ko " _stapx_run "$dir/stapx-run" d/
expect "-h -o -v " _stapx_merge "$dir/stapx-merge" -
# Every option stapx's help names is offered.
all=$(cd "$work" && complete_words _stapx "$dir/stapx" -)
for o in -b -F -P -S -T -t --skip-badvars --vm --dump-probe-types; do
	case " $all" in *" $o "*) ;; *) echo "FAIL: '$o' not offered"; status=1 ;; esac
done
exit $status
