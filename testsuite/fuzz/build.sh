#!/bin/sh
# Builds build/fuzz/parse_fuzzer (libFuzzer + ASan + UBSan) from the
# frontend sources. The X3 grammar TUs take minutes: JOBS defaults to 2.
# FUZZ_OUT overrides the output directory (default build/fuzz; also for
# run.sh and regress.sh).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
exec make -f "$here/Makefile" ROOT="$root" OUT="${FUZZ_OUT:-$root/build/fuzz}" -j"${JOBS:-2}" "$@"
