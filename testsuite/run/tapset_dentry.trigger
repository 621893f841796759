# A tmpfs mounted at /tmp/stapx-dentry/mnt holding sub/file.txt and a copy
# of busybox named cat. The copy reads the file twice: as its stdin, from
# the directory sub; then by name, chrooted into the tmpfs.
set -e
d=/tmp/stapx-dentry
mkdir -p $d/mnt
mount -t tmpfs stapx-dentry $d/mnt
mkdir $d/mnt/sub
echo hello >$d/mnt/sub/file.txt
cp /proc/self/exe $d/mnt/cat
(cd $d/mnt/sub && $d/mnt/cat <file.txt >/dev/null)
chroot $d/mnt /cat sub/file.txt >/dev/null
umount $d/mnt
rm -r $d
