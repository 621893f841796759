#!/bin/sh
# Usage: testsuite/fuzz/run-elab.sh [SECONDS]   (default 1800)
# Pass 2: builds elab_fuzzer if needed (build-elab.sh), seeds its corpus
# with the scripts of the stage and run suites (they elaborate, or fail
# to, in every way the tests know) and fuzzes with one worker against the
# guest kernel of build/kernel (its DWARF and BTF: `make deps`). Exits
# non-zero on any crash, hang (> 60 s), memory exhaustion or sanitizer
# report; the reproducer (crash-*, timeout-*, oom-*) and the log
# (fuzz.log) are left in build/fuzz-elab/.
set -e
secs=${1:-1800}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${FUZZ_ELAB_OUT:-$root/build/fuzz-elab}

"$here/build-elab.sh"

mkdir -p "$out/corpus"
for d in semok semko dwarf/semok dwarf/semko run stress; do
  for f in "$root/testsuite/$d"/*.stp; do
    [ -f "$f" ] && cp -p "$f" "$out/corpus/$(echo "$d" | tr / _)_${f##*/}"
  done
done
cp -p "$here"/regressions-elab/* "$out/corpus/" 2>/dev/null || true

cd "$out"
rm -f "$out/fuzz.rc"
set +e
{ "$out/elab_fuzzer" \
    -dict="$here/stap.dict" -max_len=4096 -timeout=60 -rss_limit_mb=8192 \
    -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$out/" \
    "$out/corpus" 2>&1; echo $? > "$out/fuzz.rc"; } | tee "$out/fuzz.log"
rc=$(cat "$out/fuzz.rc")
if [ "$rc" != 0 ] || grep -q -E 'runtime error:|ERROR: [A-Za-z]*Sanitizer' "$out/fuzz.log"; then
  echo "run-elab.sh: the fuzzer found a problem (exit $rc); see $out/fuzz.log and the crash-*, timeout-*, oom-* files in $out/" >&2
  exit 1
fi
echo "run-elab.sh: clean run of ${secs}s"
