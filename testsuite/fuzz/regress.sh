#!/bin/sh
# Runs the fuzz target once on every input in testsuite/fuzz/regressions/
# and the seed corpus (seconds; no fuzzing). Non-zero if any input crashes,
# hangs or fails the -p1 round trip.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/fuzz
"$here/build.sh"
cd "$out"
find "$here/regressions" "$here/corpus" -type f ! -name README.md | sort |
  xargs "$out/parse_fuzzer" -timeout=10 -rss_limit_mb=2048
echo "regress.sh: all inputs pass"
