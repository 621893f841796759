#!/bin/sh
# Runs the fuzz target once on each input of testsuite/fuzz/regressions/
# (one process each, so that every failure is listed) and on the whole seed
# corpus (no fuzzing; seconds). Strict: no known-bug knobs. Exits non-zero
# if any input crashes, hangs (> 30 s: the bounded macro-expansion cases
# take seconds under ASan on a busy machine), exhausts memory or fails the -p1
# round trip.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${FUZZ_OUT:-$root/build/fuzz}
"$here/build.sh"
unset STAPX_FUZZ_IGNORE_BOOST_ASSERT STAPX_FUZZ_SKIP_HUGE_EXPANSION
cd "$out"
set +e
failed=0
for f in "$here"/regressions/*; do
  [ -f "$f" ] || continue
  if "$out/parse_fuzzer" -timeout=30 -rss_limit_mb=2048 "$f" > "$out/regress.log" 2>&1; then
    echo "ok    regressions/${f##*/}"
  else
    echo "FAIL  regressions/${f##*/}: $(grep -m1 -E 'ERROR:|BOOST_ASSERT|ROUND-TRIP' "$out/regress.log")"
    failed=$((failed + 1))
  fi
done
if "$out/parse_fuzzer" -timeout=30 -rss_limit_mb=2048 "$here"/corpus/* > "$out/regress.log" 2>&1; then
  echo "ok    corpus/ ($(ls "$here"/corpus | wc -l) inputs)"
else
  echo "FAIL  corpus/: $(grep -m1 -E '^Running:|ERROR:' "$out/regress.log" | tail -1)"
  failed=$((failed + 1))
fi
[ "$failed" = 0 ] || { echo "regress.sh: $failed failure(s); see $out/regress.log" >&2; exit 1; }
echo "regress.sh: all inputs pass"
