/* process(...) points: .inline, .exported, .label and .library(). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile int sink;

static inline __attribute__((always_inline)) int tripled(int x)
{
	return x * 3 + sink;
}

__attribute__((noinline)) static int hidden(int x)
{
	return tripled(x) + 1;
}

__attribute__((noinline)) int visible(int x)
{
	return hidden(x) * 2;
}

__attribute__((noinline)) int labelled(int x)
{
	int y = x;

	if (x > 2)
		goto big;
	y += sink;
	asm volatile("" ::: "memory");
big:
	asm volatile("" ::: "memory");
	y *= 2;
	sink = y;
	return y;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 3;

	for (i = 1; i <= n; i++)
		sink += visible(i) + labelled(i) + tripled(i);
	printf("ppid %d\n", getppid() > 0);
	return 0;
}
