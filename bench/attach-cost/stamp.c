/*
 * stamp LABEL: print "stamp LABEL NS" with CLOCK_MONOTONIC in nanoseconds,
 * for bench/attach-cost in the guest. Under QEMU's -icount shift=0 guest
 * nanoseconds are executed instructions (and idle time jumps to the next
 * timer). Linked statically: the busybox guest has no libc.
 */
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("stamp %s %lld\n", argc > 1 ? argv[1] : "-",
	       ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
