#!/bin/sh
# The coherence control's job in the guest: load and unload stapx_control.ko
# CYCLES times while a reader keeps every CPU busy, each cycle waiting (by
# polling, not sleeping) until the probe has fired on every CPU.
# usage: sh control.sh CYCLES
cycles=${1:?usage: control.sh CYCLES}
ncpu=$(grep -c ^processor /proc/cpuinfo)
params=/sys/module/stapx_control/parameters
pids=
i=0
while [ $i -lt "$ncpu" ]; do
	dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>/dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT
c=0
while [ $c -lt "$cycles" ]; do
	insmod stapx_control.ko || exit 1
	while [ "$(cat $params/cpus_hit)" -lt "$ncpu" ]; do
		sleep 0.01
	done
	rmmod stapx_control || exit 1
	c=$((c + 1))
done
echo "control: $cycles cycles on $ncpu CPUs, each fired on every CPU"
