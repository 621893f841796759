echo tapset_vfs_more > /tmp/vfs_more.txt
dd if=/tmp/vfs_more.txt of=/dev/null bs=16 count=1 2>/dev/null
exec 3</dev/ram0
dd if=/dev/zero of=/dev/ram0 bs=4096 count=1 conv=notrunc 2>/dev/null
dd if=/dev/ram0 of=/dev/null bs=4096 count=1 skip=64 2>/dev/null
echo 1 > /proc/sys/vm/drop_caches
