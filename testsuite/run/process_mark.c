/* The program process_mark.stp probes: static probes (sys/sdt.h) with
 * arguments in registers, in memory (a global) and as constants, and with
 * semaphores, which say whether a probe is armed. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* One semaphore per probe: with _SDT_HAS_SEMAPHORES every probe's note
 * names provider_name_semaphore. */
#define SEMAPHORE(name) __extension__ unsigned short demo_##name##_semaphore __attribute__((section(".probes")))
SEMAPHORE(step);
SEMAPHORE(triple);
SEMAPHORE(sem);
SEMAPHORE(neg);
SEMAPHORE(unarmed);

int counter;

__attribute__((noinline)) void step(long i, const char *s)
{
	STAP_PROBE2(demo, step, i, s);
	STAP_PROBE3(demo, triple, i, i * 2, counter);
	counter++;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		step(i, "hello");
	STAP_PROBE2(demo, neg, (int)-5, (unsigned char)200);
	/* Armed: the kernel counted its semaphore up; not armed: 0. */
	STAP_PROBE2(demo, sem, demo_step_semaphore, demo_unarmed_semaphore);
	return 0;
}
