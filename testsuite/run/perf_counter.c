/* The program perf_counter.stp counts: each thread first polls ready()
 * until the script says its counters run (they are made just after the
 * thread starts), then touches fresh pages in touch(), 64 in the main
 * thread and 32 in a second one, each a page fault. */
#include <pthread.h>
#include <sys/mman.h>

__attribute__((noinline)) int ready(void)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

__attribute__((noinline)) long touch(int pages)
{
	volatile char *p = mmap(NULL, pages * 4096L, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long sum = 0;

	if (p == MAP_FAILED)
		return -1;
	for (int i = 0; i < pages; i++) {
		p[i * 4096L] = 1;
		sum += p[i * 4096L];
	}
	munmap((void *)p, pages * 4096L);
	return sum;
}

static void *thread_main(void *arg)
{
	(void)arg;
	while (!ready())
		;
	touch(32);
	return NULL;
}

int main(void)
{
	pthread_t t;

	while (!ready())
		;
	touch(64);
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	return 0;
}
