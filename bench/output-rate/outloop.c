/*
 * outloop N CPUS [RATE]: the workload of bench/output-rate, run in the
 * guest. Starts CPUS workers, worker i pinned to CPU i, each making N
 * getpid() system calls (raw syscalls: no libc caching), which the tool
 * under test answers with one line of output each. With RATE, each worker
 * makes at most RATE calls a second: after every BATCH calls it sleeps
 * until its schedule (it never spins, so the CPU is free meanwhile), and it
 * does not make up for lost time by going faster than its full speed.
 * Prints "run NS_TOTAL CALLS": the CLOCK_MONOTONIC time from before the
 * first worker starts until the last one has finished, and the calls made,
 * on stderr. Under QEMU's -icount shift=0 guest nanoseconds are executed
 * instructions. Linked statically: the busybox guest has no libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, cpus, rate = 0;
	long long t0;

	if (argc < 3 || argc > 4 || (n = atol(argv[1])) <= 0 || (cpus = atol(argv[2])) <= 0 ||
	    (argc == 4 && (rate = atol(argv[3])) <= 0)) {
		fprintf(stderr, "usage: outloop N CPUS [RATE]\n");
		return 2;
	}
	fflush(stdout);
	t0 = now_ns();
	for (long c = 0; c < cpus; c++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(c, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("sched_setaffinity");
				_exit(1);
			}
			long long start = now_ns();

			for (long i = 0; i < n; i++) {
				syscall(SYS_getpid);
				if (rate && (i + 1) % BATCH == 0) {
					long long due = start + (long long)((i + 1) * (1e9 / rate));
					struct timespec ts = { due / 1000000000LL, due % 1000000000LL };

					while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
						;
				}
			}
			_exit(0);
		}
	}
	for (long c = 0; c < cpus; c++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "outloop: a worker failed\n");
			return 1;
		}
	}
	/* (On stderr: stdout may be the tool's pipe.) */
	fprintf(stderr, "run %lld %ld\n", now_ns() - t0, n * cpus);
	return 0;
}
