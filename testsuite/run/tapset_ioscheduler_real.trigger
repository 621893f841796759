# scsi_debug's disk appears as /dev/sda once sd_mod has probed it.
n=0
while [ ! -b /dev/sda ]; do
	n=$((n + 1))
	if [ $n -gt 1000000 ]; then echo "no /dev/sda"; exit 1; fi
done
echo "scheduler: $(cat /sys/block/sda/queue/scheduler)"
dd if=/dev/zero of=/dev/sda bs=8192 seek=512 count=1 oflag=direct 2>/dev/null
dd if=/dev/sda of=/dev/null bs=4096 skip=1026 count=1 iflag=direct 2>/dev/null
# Every command gets "host busy" until the read's request is seen back
# on the disk's dispatch list, which it goes to when it is requeued.
D=/sys/bus/pseudo/drivers/scsi_debug
L=/sys/kernel/debug/block/sda/hctx0/dispatch
echo 1 > $D/every_nth
echo 0x8000 > $D/opts
dd if=/dev/sda of=/dev/null bs=4096 skip=1028 count=1 iflag=direct 2>/dev/null &
n=0
while [ -z "$(cat $L)" ]; do
	n=$((n + 1))
	if [ $n -gt 10000 ]; then echo "the read was never requeued"; break; fi
done
echo 0 > $D/opts
echo 0 > $D/every_nth
wait
