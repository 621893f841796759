/*
 * syscall_prog_time: system calls that take a timeout or a time, made with
 * fixed values (short, so the test stays fast): select, pselect6, ppoll,
 * setitimer, nanosleep, clock_nanosleep and timerfd_create.  Raw syscall()
 * so that libc cannot swap in another call or argument layout.
 */
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timeval tv = { 0, 25000 };
	struct timespec ts = { 0, 25000000 };
	struct timespec pts = { 0, 30000000 };
	struct itimerval real = { { 0, 0 }, { 5, 500000 } };
	struct itimerval virt = { { 0, 250000 }, { 1, 0 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct itimerval old;
	struct timespec ns = { 0, 1000000 };
	struct timespec cns = { 0, 2000000 };
	struct timespec abs0 = { 0, 0 };
	struct pollfd pfd;
	int p[2];

	/* Set-up failures show in the test's stdout diff. */
	if (pipe(p) || p[0] != 3) {
		printf("set-up: the pipe is descriptors %d %d, not 3 4\n", p[0], p[1]);
		return 1;
	}
	pfd.fd = p[0];
	pfd.events = POLLIN;
	pfd.revents = 0;

	syscall(SYS_select, 0, NULL, NULL, NULL, &tv);                 /* times out: 0 */
	syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, NULL);         /* times out: 0 */
	syscall(SYS_ppoll, &pfd, 1, &pts, NULL, 8);                    /* nothing to read: 0 */
	if (write(p[1], "x", 1) != 1) {
		printf("set-up: %s: %m\n", "write");
		return 1;
	}
	syscall(SYS_ppoll, &pfd, 1, NULL, NULL, 8);                    /* readable: 1 */

	syscall(SYS_setitimer, ITIMER_REAL, &real, NULL);
	syscall(SYS_setitimer, ITIMER_REAL, &off, &old);               /* cancel */
	syscall(SYS_setitimer, ITIMER_VIRTUAL, &virt, NULL);
	syscall(SYS_setitimer, ITIMER_VIRTUAL, &off, NULL);
	syscall(SYS_setitimer, 7, &off, NULL);                         /* EINVAL */

	syscall(SYS_nanosleep, &ns, NULL);
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &cns, NULL);
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &abs0, NULL); /* past: 0 */

	syscall(SYS_timerfd_create, CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	syscall(SYS_timerfd_create, CLOCK_REALTIME, 0);
	return 0;
}
