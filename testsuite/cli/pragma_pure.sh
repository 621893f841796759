#!/bin/sh
# pragma_pure.sh STAPX KERNEL_DIR: /* pure */ in library code: an alias's
# prologue sets syscall.openat's variables through pure tapset functions;
# a probe that reads only `name` calls none of them for `filename`, one
# that prints `filename` does (its value comes from user_string_quoted).
set -u
stapx=$1
calls() {
  "$stapx" -p3 -e "probe syscall.openat { println($1) exit() }" 2>&1 |
    grep -c '_stpx_fn_user_string_quoted(c);'
}
used=$(calls filename) unused=$(calls name)
if [ "$used" -lt 1 ] || [ "$unused" -ne 0 ]; then
  echo "user_string_quoted calls: $used when filename is printed (want >= 1), $unused when only name is (want 0)"
  exit 1
fi
