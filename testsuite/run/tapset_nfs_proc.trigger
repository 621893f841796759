ip link set lo up 2>/dev/null || ifconfig lo up
./tapset_nfs_proc
