/* process_prologue.stp's program, built with -O0: its parameters live in
 * stack slots that the function's prologue fills. */
#include <stdio.h>

__attribute__((noinline)) long add(long a, long b)
{
	long c = a + b;

	return c;
}

int main(void)
{
	printf("%ld\n", add(40, 2));
	return 0;
}
