/*
 * syscall_prog_files: file-descriptor and path system calls busybox never
 * makes, with fixed arguments: statx, inotify_init1, inotify_add_watch,
 * memfd_create, eventfd2, epoll_create, epoll_create1, splice, renameat2,
 * utimensat, fallocate and mknodat, in /tmp/stapx-files (tmpfs).  Raw
 * syscall() so that libc cannot swap in another call or argument layout.
 * Descriptors: 3 the file, 4 and 5 the pipe, then 6, 7, ... in order.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/stat.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DIR "/tmp/stapx-files"

int main(void)
{
	struct statx sx;
	struct timespec times[2] = { { 1000000000, 500 }, { 0, UTIME_OMIT } };
	int fd, p[2], in;

	/* Set-up failures show in the test's stdout diff. */
	if (mkdir(DIR, 0755)) {
		printf("set-up: %s: %m\n", "mkdir " DIR);
		return 1;
	}
	fd = open(DIR "/a", O_CREAT | O_RDWR, 0644);
	if (fd != 3) {
		printf("set-up: the file is descriptor %d, not 3\n", fd);
		return 1;
	}
	if (pipe(p) || write(p[1], "hello", 5) != 5) {
		printf("set-up: %s: %m\n", "pipe");
		return 1;
	}

	syscall(SYS_statx, AT_FDCWD, DIR "/a", AT_SYMLINK_NOFOLLOW,
		STATX_TYPE | STATX_MODE | STATX_SIZE, &sx);
	syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx);

	in = syscall(SYS_inotify_init1, IN_NONBLOCK | IN_CLOEXEC);
	syscall(SYS_inotify_add_watch, in, DIR, IN_CREATE | IN_DELETE);
	syscall(SYS_inotify_add_watch, in, DIR "/none", IN_MODIFY); /* ENOENT */

	syscall(SYS_memfd_create, "stapx", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	syscall(SYS_eventfd2, 3, EFD_SEMAPHORE | EFD_NONBLOCK);
	syscall(SYS_epoll_create, 4);
	syscall(SYS_epoll_create1, EPOLL_CLOEXEC);

	syscall(SYS_splice, p[0], NULL, fd, NULL, 5, SPLICE_F_MOVE | SPLICE_F_MORE);

	syscall(SYS_renameat2, AT_FDCWD, DIR "/a", AT_FDCWD, DIR "/b", RENAME_NOREPLACE);
	syscall(SYS_renameat2, AT_FDCWD, DIR "/a", AT_FDCWD, DIR "/b", 0); /* ENOENT */

	syscall(SYS_utimensat, AT_FDCWD, DIR "/b", times, AT_SYMLINK_NOFOLLOW);
	syscall(SYS_utimensat, fd, NULL, NULL, 0);

	syscall(SYS_fallocate, fd, FALLOC_FL_KEEP_SIZE, 4096, 8192);
	syscall(SYS_fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096);

	syscall(SYS_mknodat, AT_FDCWD, DIR "/fifo", S_IFIFO | 0640, 0);

	unlink(DIR "/b");
	unlink(DIR "/fifo");
	rmdir(DIR);
	return 0;
}
