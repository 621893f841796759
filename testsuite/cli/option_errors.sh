#!/bin/sh
# option_errors.sh STAPX: option combinations stap 4.8 refuses, with its
# words (checked with stap on Debian 12): each exits 1 with one line.
set -u
stapx=$1
status=0
expect() {  # expect MESSAGE ARGS...: stapx ARGS fails, saying MESSAGE
  want=$1
  shift
  out=$("$stapx" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne 1 ] || ! printf '%s\n' "$out" | grep -qF -e "$want"; then
    echo "FAIL: stapx $*: exit $rc, wanted 1 and '$want'; got:"
    printf '%s\n' "$out"
    status=1
  fi
}
expect "Only one script can be given on the command line." -p1 -e 'probe begin {}' -e 'probe end {}'
expect "Module name cannot be empty." -p1 -m '' -e 'probe begin {}'
expect "invalid pass number '6'" -p6 -e 'probe begin {}'
# A -r no path can hold (found by testsuite/fuzz/cli-fuzz): an answer, not
# "internal error: filesystem error: File name too long".
long=$(printf '%05000d' 0)
for r in "$long" "/nonexistent$long" "-1$long"; do
  out=$("$stapx" -p4 -r "$r" -e 'probe begin {}' 2>&1)
  if [ $? -ne 1 ] || printf '%s\n' "$out" | grep -q "internal error"; then
    echo "FAIL: stapx -p4 -r <${#r} bytes>: $(printf '%s\n' "$out" | cut -c1-120 | head -3)"
    status=1
  fi
done
# Output files that would stay in the --vm guest.
expect "-b cannot be used with --vm" --vm -b -e 'probe begin { exit() }'
expect "-S cannot be used with --vm" --vm -S 1 -o f -e 'probe begin { exit() }'
expect "-F cannot be used with --vm" --vm -F -e 'probe begin { exit() }'
# --remote: what ssh cannot reach, and what cannot happen on many hosts.
expect "--remote libvirt://dom: stapx reaches hosts through ssh" --remote libvirt://dom -e 'probe begin { exit() }'
expect "--remote ssh://h:0: invalid port '0'" --remote ssh://h:0 -e 'probe begin { exit() }'
expect "-b cannot be used with --remote" --remote ssh://h -b -e 'probe begin { exit() }'
expect "-p cannot be used with --remote" --remote ssh://h -p4 -e 'probe begin { exit() }'
expect "Invalid argument 'name' for --remote-prefix" --remote ssh://h --remote-prefix=name -e 'probe begin { exit() }'
# A host that does not answer is reported by its URL (nothing listens on
# port 1 of 127.0.0.1), and with no host left nothing is built.
out=$(STAPX_SSH="ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null" \
  "$stapx" --remote ssh://nobody@127.0.0.1:1 -e 'probe begin { exit() }' 2>&1)
rc=$?
if [ $rc -ne 1 ] || ! printf '%s\n' "$out" | grep -q "^stapx: remote nobody@127.0.0.1:1: cannot connect: .*refused" ||
  ! printf '%s\n' "$out" | grep -qx "stapx: no --remote host can run the script"; then
  echo "FAIL: --remote to a dead port: exit $rc; got:"
  printf '%s\n' "$out"
  status=1
fi
# Every probe elided (it does nothing): nothing to run, as stap 4.8 says
# (after its "Probe 'begin' has been elided" warnings).
expect "semantic error: no probes found" -p2 -e 'probe begin { } probe timer.s(1) { if (0) println(1) }'
# "-": the script on standard input, named <input> as stap names it.
out=$(echo 'probe begin { x = }' | "$stapx" -p1 - 2>&1)
printf '%s\n' "$out" | grep -qF "saw: operator '}' at <input>:1:19" || { echo "FAIL: stdin script: $out"; status=1; }
out=$(echo 'probe begin { println(@1) }' | "$stapx" -p1 - arg 2>&1)
printf '%s\n' "$out" | grep -qF '"arg"' || { echo "FAIL: stdin script with an argument: $out"; status=1; }
# Options after the script and its arguments count, as stap's (GNU
# getopt's) do ("stap ltrace.stp -c ls" in Debian's examples); after "--"
# they are arguments (both checked with stap 4.8 -p1 here).
script=$(mktemp) && printf 'probe begin { println(@1, $#) }\n' >"$script"
out=$("$stapx" -p1 "$script" foo -c ls 2>&1)
printf '%s\n' "$out" | grep -qF 'println("foo", 1);' || { echo "FAIL: options after the script: $out"; status=1; }
out=$("$stapx" -p1 "$script" foo -- -c ls 2>&1)
printf '%s\n' "$out" | grep -qF 'println("foo", 3);' || { echo "FAIL: arguments after --: $out"; status=1; }
rm -f "$script"
# The options that are fine still pass.
"$stapx" -p1 -m ok_name -e 'probe begin {}' >/dev/null || { echo "FAIL: -m ok_name"; status=1; }
exit $status
