#!/bin/sh
# Usage: testsuite/fuzz/run.sh [SECONDS]   (default 1800)
# Builds the fuzzer if needed, copies the seed corpus to build/fuzz/corpus
# (the repo's corpus only grows when we copy inputs back by hand) and fuzzes
# with one worker. Exits non-zero on any crash, timeout, leak, sanitizer
# report or round-trip mismatch; the reproducer (crash-*, timeout-*, oom-*,
# leak-*) is left in build/fuzz/, and the log in build/fuzz/fuzz.log.
set -e
secs=${1:-1800}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${FUZZ_OUT:-$root/build/fuzz}

"$here/build.sh"

mkdir -p "$out/corpus"
cp -p "$here"/corpus/* "$out/corpus/"

# Strict by default: every known bug is fixed. To fuzz past a new, reported
# one, STAPX_FUZZ_IGNORE_BOOST_ASSERT=TEXT goes on past a BOOST_ASSERT whose
# expression contains TEXT (see README.md).

cd "$out"
rm -f "$out/fuzz.rc"
set +e
# In process, one worker. The exit status goes through a file: sh has no pipefail.
{ "$out/parse_fuzzer" \
    -dict="$here/stap.dict" -max_len=4096 -timeout=30 -rss_limit_mb=2048 \
    -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$out/" \
    "$out/corpus" 2>&1; echo $? > "$out/fuzz.rc"; } | tee "$out/fuzz.log"
rc=$(cat "$out/fuzz.rc")
if [ "$rc" != 0 ] || grep -q -E 'ROUND-TRIP|runtime error:|ERROR: [A-Za-z]*Sanitizer' "$out/fuzz.log"; then
  echo "run.sh: the fuzzer found a problem (exit $rc); see $out/fuzz.log and the crash-*, timeout-*, oom-* files in $out/" >&2
  exit 1
fi
echo "run.sh: clean run of ${secs}s; the grown corpus is in $out/corpus"
