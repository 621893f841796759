/* tapset_task_times.stp's program. Child 1 spends about 200 ms of CPU in
 * user space (counting, with a look at its CPU clock, a system call, every
 * million counts); then child 2 about 200 ms in the kernel (reads of
 * /dev/zero, 1 MiB each: clearing the buffer is kernel time). Each tells
 * the parent its CPU clock (CLOCK_THREAD_CPUTIME_ID, the scheduler's exact
 * count) at the end and waits, not running, until the parent closes a
 * pipe. The parent passes the two times in microseconds to the probes as
 * lseek(-1, T1, SEEK_SET) and lseek(-1, T2, SEEK_CUR), the children's PIDs
 * as kill(PID1, 0) and kill(PID2, 0), and ends. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static char buf[1 << 20];

/* A child that spends its time in user space (kernel 0) or in the kernel
 * (1), then waits for EOF on hold; its PID, and its CPU time in t. */
static pid_t child(int kernel, const int hold[2], long long *t)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		int zero = open("/dev/zero", O_RDONLY);

		close(hold[1]);
		while ((*t = cpu_ns()) < 200000000) {
			if (kernel) {
				if (read(zero, buf, sizeof(buf)) < 0)
					_exit(1);
			} else {
				for (volatile int i = 0; i < 1000000; i++)
					;
			}
		}
		if (write(p[1], t, sizeof(*t)) != sizeof(*t))
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], t, sizeof(*t)) != sizeof(*t))
		return -1;
	close(p[0]);
	return pid;
}

int main(void)
{
	int hold[2];
	long long t[2];
	pid_t c[2];

	if (pipe(hold))
		return 1;
	c[0] = child(0, hold, &t[0]);
	c[1] = child(1, hold, &t[1]);
	if (c[0] < 0 || c[1] < 0)
		return 1;
	lseek(-1, t[0] / 1000, SEEK_SET);
	lseek(-1, t[1] / 1000, SEEK_CUR);
	kill(c[0], 0);
	kill(c[1], 0);
	close(hold[1]);
	waitpid(c[0], NULL, 0);
	waitpid(c[1], NULL, 0);
	return 0;
}
