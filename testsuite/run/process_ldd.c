/* A dynamically linked program (process_ldd.dynamic; process_plt.c links
 * here) whose function
 * cmp() libc's qsort() calls: the stack at cmp() runs through libc. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int cmp(const void *a, const void *b)
{
	__asm__ volatile("" ::: "memory");
	return *(const int *)a - *(const int *)b;
}

int main(void)
{
	int v[] = { 3, 1, 2 };

	qsort(v, 3, sizeof(v[0]), cmp);
	printf("%d %d %d\n", v[0], v[1], v[2]);
	return 0;
}
