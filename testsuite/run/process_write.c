/* process_write.stp's program, built with -O0 (.cflags): scale() computes
 * from its parameter and through the pointers it is given, and main()
 * prints what came of it, so that a write by the probe shows. */
#include <stdio.h>

long base = 1;

__attribute__((noinline)) long scale(long n, long *acc, int *count, short *small, char *name)
{
	*acc += n * base;
	*count += 1;
	*small += 1;
	return n;
}

int main(void)
{
	long acc = 0;
	int count = 0;
	short small = 0;
	char name[16] = "before";
	long r = scale(3, &acc, &count, &small, name);

	printf("r=%ld acc=%ld count=%d small=%d name=%s base=%ld\n", r, acc, count, small, name, base);
	return 0;
}
