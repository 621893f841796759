/* The program process_function.stp probes: work() called N times (N from
 * argv[1]), then done(). Not inlined, so each call is a call. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long work(long n, const char *tag)
{
	__asm__ volatile("" ::: "memory");
	return n * 2 + (tag[0] == 'x');
}

__attribute__((noinline)) int done(long total)
{
	__asm__ volatile("" ::: "memory");
	return (int)(total % 7);
}

int main(int argc, char **argv)
{
	long total = 0;
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++)
		total += work(i, "abc");
	printf("%ld\n", total);
	return done(total);
}
