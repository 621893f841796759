#!/bin/sh
# list_aliases.sh STAPX KERNEL_DIR: -l and -L of the library's probe
# aliases list each alias by its own name (a wildcard gives every alias it
# matches, sorted), not the points it stands for; -L adds the variables
# the alias's prologue sets, as name:type, then the context's $variables.
set -u
stapx=$1 kdir=$2
R=$(cat "$kdir/release" 2>/dev/null) || exit 77
export STAPX_KERNEL_DIR=$kdir
fail=0
check() {  # NAME WANT GOT
  [ "$2" = "$3" ] && return
  printf '%s: want\n%s\ngot\n%s\n' "$1" "$2" "$3"
  fail=1
}
check "-l syscall.open*" "syscall.open
syscall.open_by_handle_at
syscall.openat" "$("$stapx" -r "$R" -l 'syscall.open*' 2>&1)"
check "-l kprocess.ex*" "kprocess.exec
kprocess.exec_complete
kprocess.exit" "$("$stapx" -r "$R" -l 'kprocess.ex*' 2>&1)"
check "-l vfs.read.return" "vfs.read.return" "$("$stapx" -r "$R" -l 'vfs.read.return' 2>&1)"
# -L: one line, the alias's name, then its variables.
got=$("$stapx" -r "$R" -L 'syscall.close' 2>&1)
case "$got" in
  "syscall.close "*) ;;
  *) check "-L syscall.close (name)" "syscall.close ..." "$got" ;;
esac
for v in name:string fd:long argstr:string; do
  case " $got " in
    *" $v "*) ;;
    *) check "-L syscall.close ($v)" "... $v ..." "$got" ;;
  esac
done
[ "$(printf '%s\n' "$got" | wc -l)" = 1 ] || check "-L syscall.close (one line)" "one line" "$got"
got=$("$stapx" -r "$R" -L 'syscall.read.return' 2>&1)
case " $got " in
  " syscall.read.return "*" retval:long"*" retstr:string "*) ;;
  *) check "-L syscall.read.return" "syscall.read.return ... retval:long ... retstr:string ..." "$got" ;;
esac
exit $fail
