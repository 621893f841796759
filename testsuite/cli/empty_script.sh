#!/bin/sh
# empty_script.sh STAPX KERNEL_DIR: a script with no tokens is refused at
# pass 1 in stap 4.8's words (checked with its -p1 here): "Input file
# 'NAME' is empty." for blanks and comments, "... is empty after
# preprocessing." when its conditionals left nothing; exit status 1.
# A script of only a global is no empty one.
set -u
stapx=$1
fail() { printf '%s\n' "$*"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

expect() {  # expect WANT STAPX-ARGS...: stderr is exactly WANT, exit 1
  want=$1
  shift
  out=$("$stapx" "$@" 2>&1 >/dev/null) && fail "accepted: $*"
  [ "$out" = "$want" ] || fail "$*: got '$out', want '$want'"
}
expect "Input file '<input>' is empty.
Pass 1: parse failed." -p1 -e ''
printf '# a comment\n// another\n/* and\n another */\n\n' >"$tmp/comments.stp"
expect "Input file '$tmp/comments.stp' is empty.
Pass 1: parse failed." -p2 "$tmp/comments.stp"
expect "Input file '<input>' is empty after preprocessing.
Pass 1: parse failed." -p1 -e '%( 1 == 0 %? probe begin { } %)'
printf '%%( systemtap_v < "1.0" %%? probe begin { } %%)\n' >"$tmp/cond.stp"
expect "Input file '$tmp/cond.stp' is empty after preprocessing.
Pass 1: parse failed." -p2 "$tmp/cond.stp"
"$stapx" -p1 -e 'global x' >/dev/null || fail "a lone global refused"
exit 0
