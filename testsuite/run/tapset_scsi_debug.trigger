# scsi_debug's disk appears as /dev/sda once sd_mod has probed it.
n=0
while [ ! -b /dev/sda ]; do
	n=$((n + 1))
	if [ $n -gt 1000000 ]; then echo "no /dev/sda"; exit 1; fi
done
echo "scsi_debug disk: $(ls /sys/block/sda/device/scsi_device) on $(ls /sys/class/scsi_host)"
dd if=/dev/zero of=/dev/sda bs=8192 seek=512 count=1 oflag=direct 2>/dev/null
dd if=/dev/sda of=/dev/null bs=4096 skip=1026 count=1 iflag=direct 2>/dev/null
echo 1 > /sys/block/sda/device/rescan
echo offline > /sys/block/sda/device/state
echo 1 > /sys/block/sda/device/delete
