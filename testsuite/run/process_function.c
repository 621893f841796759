/* The program process_function.stp, process_ustack.stp and
 * process_changed.stp probe (their .c files link here): work() called N
 * times (N from argv[1]), fact(4), then done(). Not inlined, so each call
 * is a call. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long work(long n, const char *tag)
{
	__asm__ volatile("" ::: "memory");
	return n * 2 + (tag[0] == 'x');
}

/* Recursive, with each call's result opaque to the compiler, so that the
 * recursion stays calls (no loop): one frame per call. */
__attribute__((noinline)) long fact(long n)
{
	long r;

	if (n <= 1)
		return 1;
	r = fact(n - 1);
	__asm__ volatile("" : "+r"(r));
	return n * r;
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
	total += fact(4);
	printf("%ld\n", total);
	return done(total);
}
