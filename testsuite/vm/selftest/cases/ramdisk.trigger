# The RAM disk brd.ko (NAME.modules) is loaded: ram0 can be written and read.
dd if=/dev/zero of=/dev/ram0 bs=4096 count=1 conv=notrunc 2>/dev/null &&
	dd if=/dev/ram0 of=/dev/null bs=4096 count=1 2>/dev/null &&
	echo 1 > /sys/kernel/debug/ramdisk/poke
