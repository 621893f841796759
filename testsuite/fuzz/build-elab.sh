#!/bin/sh
# Builds build/fuzz-elab/elab_fuzzer: the translator with clang-14,
# libFuzzer's coverage, ASan and UBSan, in its own CMake build directory
# (FUZZ_ELAB_OUT overrides it). The X3 grammar TUs take minutes.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${FUZZ_ELAB_OUT:-$root/build/fuzz-elab}
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake -S "$root" -B "$out" -DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER=clang-14 \
	-DCMAKE_CXX_COMPILER=clang++-14 "-DCMAKE_CXX_FLAGS=$flags -Wno-overloaded-shift-op-parentheses" \
	"-DCMAKE_C_FLAGS=$flags" -DSTAPX_PGO= -DSTAPX_FUZZ=ON >/dev/null
cmake --build "$out" -j"${JOBS:-2}" --target elab_fuzzer
