/* process_statement_addr.stp's program, built with -O0 (.cflags) so that
 * n and twice live where the DWARF says through all of step(): step()
 * marks a place in its body with the global label step_mid, whose
 * address the test passes as $2. */
#include <stdio.h>

long total;

__attribute__((noinline)) long step(long n)
{
	long twice = n * 2;

	__asm__ volatile(".globl step_mid\nstep_mid:" ::: "memory");
	total += twice;
	return twice;
}

int main(void)
{
	for (long i = 1; i <= 3; i++)
		step(i);
	printf("total %ld\n", total);
	return 0;
}
