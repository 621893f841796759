/*
 * outloop N CPUS: the workload of bench/output-rate, run in the guest.
 * Starts CPUS workers, worker i pinned to CPU i, each making N getpid()
 * system calls (raw syscalls: no libc caching), which the tool under test
 * answers with one line of output each. Prints "run NS_TOTAL CALLS": the
 * CLOCK_MONOTONIC time from before the first worker starts until the last
 * one has finished, and the calls made, on stderr. Under QEMU's -icount shift=0 guest
 * nanoseconds are executed instructions. Linked statically: the busybox
 * guest has no libc.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, cpus;
	long long t0;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (cpus = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: outloop N CPUS\n");
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
			for (long i = 0; i < n; i++)
				syscall(SYS_getpid);
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
