/* process_running.stp's program: started before the script (its .sh), it
 * waits for a line on stdin, calls work(41) and prints what it returned. */
#include <stdio.h>

__attribute__((noinline)) long work(long n)
{
	__asm__ volatile("" ::: "memory");
	return n + 1;
}

int main(void)
{
	char line[16];

	if (!fgets(line, sizeof(line), stdin))
		return 1;
	printf("%ld\n", work(41));
	return 0;
}
