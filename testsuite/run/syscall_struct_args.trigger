echo hello >/tmp/stapx-sa.txt
x=$(echo hi)
mkdir -p /tmp/stapx-sa
mount -t tmpfs -o size=1m,nosuid,nodev,noexec tmpfs /tmp/stapx-sa
umount /tmp/stapx-sa
mount -t tmpfs -o ro tmpfs /tmp/stapx-sa
umount -l /tmp/stapx-sa
mknod /tmp/stapx-sa.fifo p
fallocate -l 4096 /tmp/stapx-sa.fa
touch -d '2020-01-02 03:04:05' /tmp/stapx-sa.fa
env -i /bin/true a b
ulimit -n 100
sleep 0.01
sh -c 'exit 3'
sh -c 'kill -TERM $$'
rm -rf /tmp/stapx-sa /tmp/stapx-sa.*
exit 0
