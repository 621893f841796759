# Starts the kernel's NFS server on loopback (NFSv4 only: the guest has no
# rpcbind or mountd) exporting /tmp/nfsexp, mounts it on /tmp/nfsmnt, works
# on files there, then unmounts it and stops the server.
ifconfig lo 127.0.0.1 up
mkdir -p /tmp/nfsexp /tmp/nfsmnt /var/lib/nfs/v4recovery
mount -t nfsd nfsd /proc/fs/nfsd
echo "-3 +4 +4.1 +4.2" > /proc/fs/nfsd/versions
# What mountd would answer: 127.0.0.1 is in domain hrpcdom, which gets
# /tmp/nfsexp (rw, insecure, no_subtree_check, fsid=0: the NFSv4 root),
# and fsid 0 (type 1, FSID_NUM) is /tmp/nfsexp.
echo "nfsd 127.0.0.1 2147483647 hrpcdom" > /proc/net/rpc/auth.unix.ip/channel
echo "hrpcdom /tmp/nfsexp 2147483647 9218 65534 65534 0" > /proc/net/rpc/nfsd.export/channel
echo "hrpcdom 1 \\x00000000 2147483647 /tmp/nfsexp" > /proc/net/rpc/nfsd.fh/channel
echo 1 > /proc/fs/nfsd/threads
echo Y > /proc/fs/nfsd/v4_end_grace
mount -t nfs4 -o vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1 127.0.0.1:/ /tmp/nfsmnt || exit 1
echo "hello, nfs" > /tmp/nfsmnt/hrpc_file
sync
dd if=/tmp/nfsmnt/hrpc_file of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
mv /tmp/nfsmnt/hrpc_file /tmp/nfsmnt/hrpc_renamed
rm /tmp/nfsmnt/hrpc_renamed
mkdir /tmp/nfsmnt/hrpc_dir
rmdir /tmp/nfsmnt/hrpc_dir
# Two megabytes: several unstable WRITEs, then a COMMIT (conv=fsync).
dd if=/dev/zero of=/tmp/nfsmnt/hrpc_big bs=1048576 count=2 conv=fsync 2>/dev/null
rm /tmp/nfsmnt/hrpc_big
umount /tmp/nfsmnt
echo 0 > /proc/fs/nfsd/threads
umount /proc/fs/nfsd
