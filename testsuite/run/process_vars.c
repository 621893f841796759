/* process_vars.stp's program, built with -O0 (process_vars.cflags), so
 * that each variable lives where its DWARF says for the whole function: a
 * structure with bitfields, a character array and a pointer to the next;
 * a global and a file's static array; a function with locals, among them
 * an array. */
#include <stdio.h>

struct item {
	int id;
	unsigned int kind : 3;
	unsigned int flag : 1;
	char name[8];
	struct item *next;
};

long counter = 5;
static int table[4] = { 10, 20, 30, 40 };

__attribute__((noinline)) long visit(struct item *it, int depth)
{
	long sum = 0;
	int vals[3] = { depth, depth * 2, depth * 3 };
	struct item *p;

	for (p = it; p; p = p->next)
		sum += p->id * 10 + p->kind;
	counter += sum;
	return sum + vals[1];
}

int main(void)
{
	struct item b = { .id = 2, .kind = 5, .flag = 1, .name = "bee", .next = 0 };
	struct item a = { .id = 1, .kind = 3, .flag = 0, .name = "ay", .next = &b };
	long r = visit(&a, 2);

	printf("%ld %ld %d\n", r, counter, table[2]);
	return 0;
}
