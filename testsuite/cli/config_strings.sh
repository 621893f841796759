#!/bin/sh
# config_strings.sh STAPX KERNEL_DIR: %( CONFIG_X == "..." %) against a
# build tree's .config, as stap 4.8 decides it: y/m/numbers as written, a
# string value with its quotes (so `== ""` is false for an empty string
# and `== "\"(none)\""` is true), an unset option as "".
set -u
stapx=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/include/config"
: > "$tree/Makefile"
echo 6.1.0-test > "$tree/include/config/kernel.release"
cat > "$tree/.config" <<'CFG'
#
# Automatically generated file; DO NOT EDIT.
#
CONFIG_SMP=y
CONFIG_EXT4_FS=m
CONFIG_HZ=250
CONFIG_NR_CPUS=8192
CONFIG_LOCALVERSION=""
CONFIG_DEFAULT_HOSTNAME="(none)"
# CONFIG_NOPE is not set
CFG
script='probe begin {
  %( CONFIG_SMP == "y" %? print("1") %: print("0") %)
  %( CONFIG_EXT4_FS == "[ym]" %? print("1") %: print("0") %)
  %( CONFIG_HZ >= 250 %? print("1") %: print("0") %)
  %( CONFIG_HZ > CONFIG_NR_CPUS %? print("1") %: print("0") %)
  %( CONFIG_LOCALVERSION == "" %? print("1") %: print("0") %)
  %( CONFIG_LOCALVERSION == "\"\"" %? print("1") %: print("0") %)
  %( CONFIG_DEFAULT_HOSTNAME == "(none)" %? print("1") %: print("0") %)
  %( CONFIG_DEFAULT_HOSTNAME == "\"(none)\"" %? print("1") %: print("0") %)
  %( CONFIG_DEFAULT_HOSTNAME == "*none*" %? print("1") %: print("0") %)
  %( CONFIG_NOPE == "" %? print("1") %: print("0") %)
  %( CONFIG_NOPE == "n" %? print("1") %: print("0") %)
}'
# stap 4.8 on this tree: 1 1 1 0 0 1 0 1 1 1 0
want='1110010111 0'
got=$("$stapx" -p1 -r "$tree" -e "$script" 2>&1 | tr -d '\n' | sed 's/[^01]//g')
want=$(echo "$want" | tr -d ' ')
if [ "$got" != "$want" ]; then
  echo "chosen branches: $got, want $want"
  "$stapx" -p1 -r "$tree" -e "$script" 2>&1
  exit 1
fi
