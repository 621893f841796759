# ramfs, not tmpfs: tmpfs writes through shmem_file_write_iter on newer
# kernels (6.12), ramfs through generic_file_write_iter on all of them.
mkdir -p /tmp/vfs_more
mount -t ramfs ramfs /tmp/vfs_more
echo tapset_vfs_more > /tmp/vfs_more/f.txt
dd if=/tmp/vfs_more/f.txt of=/dev/null bs=16 count=1 2>/dev/null
umount /tmp/vfs_more
exec 3</dev/ram0
dd if=/dev/zero of=/dev/ram0 bs=4096 count=1 conv=notrunc 2>/dev/null
dd if=/dev/ram0 of=/dev/null bs=4096 count=1 skip=64 2>/dev/null
echo 1 > /proc/sys/vm/drop_caches
