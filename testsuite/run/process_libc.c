/* A dynamically linked program (process_libc.dynamic): calls libc's
 * strtol() (atoi() is inlined into a call of it) on three strings, so
 * that process_libc.stp can probe libc. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	const char *in[] = { "7", "42", "-3" };
	long sum = 0, touched = 0;

	/* Probes may read only memory that is paged in (no faults in a
	 * handler): touch the strings' page first. */
	for (int i = 0; i < 3; i++)
		touched += *(volatile const char *)in[i];
	for (int i = 0; i < 3; i++)
		sum += atoi(in[i]);
	printf("%ld %ld\n", sum, touched);
	return 0;
}
