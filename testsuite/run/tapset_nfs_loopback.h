/* The NFS loopback the tapset_nfs_* tests share (each test's NAME.c
 * includes this file and calls nfs_loopback_run()).
 *
 * The guest has no nfs-utils: this program is the server's administrator
 * and the client's user at once. It starts the kernel's NFS server (nfsd)
 * for NFSv4 only (v2 and v3 would need lockd and rpcbind), exports a tmpfs
 * as the NFSv4 root (fsid=0) to 127.0.0.1 by writing the three caches
 * mountd would fill (auth.unix.ip, nfsd.fh, nfsd.export), ends the grace
 * period, and mounts it with mount(2), which for NFSv4.2 needs neither
 * rpcbind nor mountd. Then, on the mount:
 *
 *   1. creates hello.txt (open O_CREAT), writes 5000 bytes ('a'), seeks
 *      back to 0, sets O_NONBLOCK with fcntl(F_SETFL), takes and drops a
 *      write lock (bytes 0-99), writes the pages back without waiting
 *      for stable storage (sync_file_range: an UNSTABLE WRITE), fsyncs
 *      (a COMMIT), drops its pages (posix_fadvise DONTNEED), reads it
 *      back (readahead: a READ) and closes it;
 *   2. maps hello.txt with MADV_RANDOM after dropping its pages again and
 *      reads its first byte (a page fault without readahead: read_folio);
 *   2b. writes 300000 bytes to big.bin, in more than one WRITE call
 *      (wsize is at most 128 KiB here), without waiting for stable
 *      storage (sync_file_range), fsyncs it (a COMMIT) and closes it;
 *   3. stat()s missing.txt (a LOOKUP that fails with ENOENT);
 *   4. makes made.txt with mknod(S_IFREG) (the dir's ->create);
 *   5. renames hello.txt to renamed.txt;
 *   6. unlinks big.bin, made.txt and renamed.txt (REMOVE): big.bin
 *      only now, after the round trips of 3-5, because the client may
 *      still hold its dentry for a moment after close() (the last
 *      WRITE's or COMMIT's request is let go from rpciod), and an unlink
 *      then renames it to .nfsXXXX instead ("silly rename"), which a
 *      loaded 6.1-rt guest once did;
 *
 * unmounts, stops the server and removes what it made, so that the
 * harness can unload the modules. It prints "nfs: ..." lines for each
 * step and exits 1 at the first step that fails, saying why on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define NFSD_DIR "/proc/fs/nfsd"
#define EXPORT_DIR "/nfs_export"
#define MOUNT_DIR "/nfs_mnt"
#define RECOVERY_DIR "/var/lib/nfs/v4recovery"

static void cleanup(void);

static void die(const char *what)
{
	fprintf(stderr, "nfs loopback: %s: %s\n", what, strerror(errno));
	cleanup();
	exit(1);
}

/* Write TEXT to PATH in one write(2), as the caches want whole lines. */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void must_put(const char *path, const char *text)
{
	if (put(path, text)) {
		fprintf(stderr, "nfs loopback: writing \"%.*s\" to %s: %s\n",
			(int)strcspn(text, "\n"), text, path, strerror(errno));
		cleanup();
		exit(1);
	}
}

static void server_start(void)
{
	/* NFSEXP_INSECURE_PORT | NFSEXP_NOSUBTREECHECK | NFSEXP_FSID, no
	 * root squashing, read-write; anonymous uid and gid 65534; fsid 0:
	 * the NFSv4 pseudo-root. The expiry is far in the future. */
	static const char *const caches[][2] = {
		{ "/proc/net/rpc/auth.unix.ip/channel", "nfsd 127.0.0.1 2147483647 nfs_loopback\n" },
		{ "/proc/net/rpc/nfsd.fh/channel", "nfs_loopback 1 \\x00000000 2147483647 " EXPORT_DIR "\n" },
		{ "/proc/net/rpc/nfsd.export/channel",
		  "nfs_loopback " EXPORT_DIR " 2147483647 9218 65534 65534 0\n" },
	};
	unsigned i;

	mkdir(NFSD_DIR, 0755);
	if (mount("nfsd", NFSD_DIR, "nfsd", 0, NULL))
		die("mount nfsd");
	if (mkdir(EXPORT_DIR, 0755) && errno != EEXIST)
		die("mkdir " EXPORT_DIR);
	if (mount("tmpfs", EXPORT_DIR, "tmpfs", 0, "mode=0777"))
		die("mount tmpfs");
	/* nfsd tracks NFSv4 clients (for reclaims after a reboot) in
	 * this directory when no nfsdcld daemon or nfsdcltrack program
	 * does; without tracking it refuses to end the grace period (90
	 * seconds without OPENs) early. */
	mkdir("/var", 0755);
	mkdir("/var/lib", 0755);
	mkdir("/var/lib/nfs", 0755);
	if (mkdir(RECOVERY_DIR, 0700) && errno != EEXIST)
		die("mkdir " RECOVERY_DIR);
	must_put(NFSD_DIR "/versions", "-2 -3 +4 +4.1 +4.2\n");
	for (i = 0; i < sizeof(caches) / sizeof(caches[0]); i++)
		must_put(caches[i][0], caches[i][1]);
	must_put(NFSD_DIR "/threads", "2\n");
	must_put(NFSD_DIR "/v4_end_grace", "Y\n");
	printf("nfs: server started\n");
}

/* nfsd closes its cached files of the export from a work queue after
 * its threads stop: poll until the tmpfs is no longer busy. */
static void umount_export(void)
{
	int i;

	for (i = 0; umount(EXPORT_DIR); i++) {
		if (errno != EBUSY || i == 1000)
			die("umount tmpfs");
		usleep(10000);
	}
}

static void server_stop(void)
{
	must_put(NFSD_DIR "/threads", "0\n");
	put("/proc/net/rpc/auth.unix.ip/flush", "2147483647\n");
	put("/proc/net/rpc/nfsd.fh/flush", "2147483647\n");
	put("/proc/net/rpc/nfsd.export/flush", "2147483647\n");
	if (umount(NFSD_DIR))
		die("umount nfsd");
	umount_export();
	rmdir(EXPORT_DIR);
	printf("nfs: server stopped\n");
}

/* After a failure: undo what can be undone, so that the modules unload. */
static void cleanup(void)
{
	umount2(MOUNT_DIR, MNT_FORCE);
	put(NFSD_DIR "/threads", "0\n");
	umount(NFSD_DIR);
	umount(EXPORT_DIR);
}

static void drop_pages(int fd)
{
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		die("posix_fadvise");
}

static void client_run(void)
{
	static char buf[5000];
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 100 };
	struct stat st;
	ssize_t n;
	char *map;
	int fd;

	if (mkdir(MOUNT_DIR, 0755) && errno != EEXIST)
		die("mkdir " MOUNT_DIR);
	if (mount("127.0.0.1:/", MOUNT_DIR, "nfs4", 0,
		  "vers=4.2,addr=127.0.0.1,clientaddr=127.0.0.1"))
		die("mount nfs4");
	printf("nfs: mounted\n");

	/* 1 */
	fd = open(MOUNT_DIR "/hello.txt", O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0)
		die("open hello.txt");
	memset(buf, 'a', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		die("write");
	if (lseek(fd, 0, SEEK_SET) != 0)
		die("lseek");
	if (fcntl(fd, F_SETFL, O_NONBLOCK))
		die("fcntl F_SETFL");
	if (fcntl(fd, F_SETLK, &lk))
		die("fcntl F_SETLK");
	lk.l_type = F_UNLCK;
	if (fcntl(fd, F_SETLK, &lk))
		die("fcntl F_SETLK unlock");
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
		die("sync_file_range");
	if (fsync(fd))
		die("fsync");
	drop_pages(fd);
	n = read(fd, buf, sizeof(buf));
	if (n != (ssize_t)sizeof(buf) || buf[0] != 'a' || buf[sizeof(buf) - 1] != 'a')
		die("read");
	if (close(fd))
		die("close");
	printf("nfs: wrote and read back %zd bytes\n", n);

	/* 2 */
	fd = open(MOUNT_DIR "/hello.txt", O_RDONLY);
	if (fd < 0)
		die("open hello.txt again");
	drop_pages(fd);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	if (madvise(map, 4096, MADV_RANDOM))
		die("madvise");
	if (map[0] != 'a')
		die("mapped byte");
	munmap(map, 4096);
	close(fd);
	printf("nfs: mapped\n");

	/* 2b */
	{
		static char big[300000];

		fd = open(MOUNT_DIR "/big.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			die("open big.bin");
		memset(big, 'b', sizeof(big));
		if (write(fd, big, sizeof(big)) != (ssize_t)sizeof(big))
			die("write big.bin");
		if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER))
			die("sync_file_range big.bin");
		if (fsync(fd) || close(fd))
			die("fsync or close big.bin");
		printf("nfs: wrote big.bin\n");
	}

	/* 3 */
	if (stat(MOUNT_DIR "/missing.txt", &st) == 0 || errno != ENOENT)
		die("stat missing.txt");
	/* 4 */
	if (mknod(MOUNT_DIR "/made.txt", S_IFREG | 0600, 0))
		die("mknod made.txt");
	/* 5 */
	if (rename(MOUNT_DIR "/hello.txt", MOUNT_DIR "/renamed.txt"))
		die("rename");
	/* 6 */
	if (unlink(MOUNT_DIR "/big.bin") || unlink(MOUNT_DIR "/made.txt") ||
	    unlink(MOUNT_DIR "/renamed.txt"))
		die("unlink");
	printf("nfs: made, renamed and removed files\n");

	if (umount(MOUNT_DIR))
		die("umount nfs4");
	rmdir(MOUNT_DIR);
	printf("nfs: unmounted\n");
}

static int nfs_loopback_run(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	server_start();
	client_run();
	server_stop();
	return 0;
}
