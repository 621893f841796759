/* The program guru_write_return_only.stp releases: it polls held() until
 * the script makes it return 1, then calls done(). */
#include <poll.h>

__attribute__((noinline)) int held(void)
{
	__asm__ volatile("" ::: "memory");
	return 1;
}

__attribute__((noinline)) int done(int polls)
{
	__asm__ volatile("" ::: "memory");
	return polls;
}

int main(void)
{
	int polls = 0;

	while (held())
		polls += poll(0, 0, 1) == 0;
	return done(polls) < 0;
}
