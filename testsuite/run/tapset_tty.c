/* A pseudo-terminal session for tapset_tty: mounts devpts on /dev/pts if
 * it is not there, opens /dev/ptmx, unlocks and opens its slave, makes
 * the slave raw (no echo, no output processing), writes "ping\n" on the
 * master and reads it on the slave, writes "pong!\n" on the slave and
 * reads it on the master (each read after a poll() for POLLIN, so the
 * data has been received), sets the window size through the slave
 * (24x80) then through the master (40x132, 640x480 pixels: the kernel
 * resizes the slave for both), and closes the slave then the master.
 * Prints nothing unless something fails. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static int fail(const char *what)
{
	printf("tapset_tty: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Waits until FD is readable, then reads exactly the LEN bytes of WANT. */
static int expect(int fd, const char *want, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[32];
	ssize_t n;

	if (poll(&p, 1, -1) != 1)
		return fail("poll");
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return fail("read");
	if ((size_t)n != len || memcmp(buf, want, len)) {
		printf("tapset_tty: read %zd bytes, not %zu\n", n, len);
		return 1;
	}
	return 0;
}

int main(void)
{
	struct winsize small = { .ws_row = 24, .ws_col = 80 };
	struct winsize big = { .ws_row = 40, .ws_col = 132, .ws_xpixel = 640, .ws_ypixel = 480 };
	struct termios t;
	char path[32];
	int m, s, n, unlock = 0;

	if (access("/dev/pts/ptmx", F_OK)) {
		mkdir("/dev/pts", 0755);
		if (mount("devpts", "/dev/pts", "devpts", 0, "ptmxmode=666"))
			return fail("mount devpts");
	}
	m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (m < 0)
		return fail("open /dev/ptmx");
	if (ioctl(m, TIOCSPTLCK, &unlock) || ioctl(m, TIOCGPTN, &n))
		return fail("unlock");
	snprintf(path, sizeof(path), "/dev/pts/%d", n);
	s = open(path, O_RDWR | O_NOCTTY);
	if (s < 0)
		return fail(path);
	/* The ioctls themselves (not tcsetattr(), whose ioctls are libc's
	 * choice): one TCGETS, one TCSETS. */
	if (ioctl(s, TCGETS, &t))
		return fail("TCGETS");
	cfmakeraw(&t);
	if (ioctl(s, TCSETS, &t))
		return fail("TCSETS");

	if (write(m, "ping\n", 5) != 5)
		return fail("write master");
	if (expect(s, "ping\n", 5))
		return 1;
	if (write(s, "pong!\n", 6) != 6)
		return fail("write slave");
	if (expect(m, "pong!\n", 6))
		return 1;

	if (ioctl(s, TIOCSWINSZ, &small) || ioctl(m, TIOCSWINSZ, &big))
		return fail("TIOCSWINSZ");
	close(s);
	close(m);
	return 0;
}
