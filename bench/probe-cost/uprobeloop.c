/*
 * uprobeloop N REPS: the workload of `bench/probe-cost/run --uprobe`, run
 * in the guest. Calls probed() N times once to warm up, then REPS more
 * times, timing each run of N with CLOCK_MONOTONIC; the benchmark puts a
 * uprobe on probed(). Prints "pid PID" and then one line per timed run:
 * "run NS_TOTAL N", as probeloop does (NS_TOTAL / N is instructions per
 * call under QEMU's -icount shift=0). Linked statically (the busybox guest
 * has no libc) and built with -g (stapx reads its DWARF); the benchmark
 * stages it in the guest at the absolute path stapx read it from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/*
 * The probed function. noipa: never inlined, cloned (probed.constprop.0
 * would take the calls) or assumed side-effect free; the asm keeps each
 * call a call. Its first instruction is where all three tools put their
 * uprobe.
 */
__attribute__((noipa)) long probed(long i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		probed(i);
}

int main(int argc, char **argv)
{
	long n, reps;

	if (argc != 3 || (n = atol(argv[1])) <= 0 || (reps = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: uprobeloop N REPS\n");
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
