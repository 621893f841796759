/*
 * probeloop N REPS: the workload of bench/probe-cost, run in the guest.
 * Makes N getpid() system calls (raw syscalls: no libc caching) once to
 * warm up, then REPS more times, timing each run of N with
 * CLOCK_MONOTONIC. Prints "pid PID" and then one line per timed run:
 * "run NS_TOTAL N". Under QEMU's -icount shift=0 guest nanoseconds are
 * executed instructions, so NS_TOTAL / N is instructions per call.
 * Linked statically: the busybox guest has no libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

int main(int argc, char **argv)
{
	long n, reps;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (reps = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: probeloop N REPS\n");
		return 2;
	}
	printf("pid %ld\n", (long)getpid());
	calls(n);
	for (long r = 0; r < reps; r++) {
		long long t0 = now_ns();

		calls(n);
		printf("run %lld %ld\n", now_ns() - t0, n);
	}
	return 0;
}
