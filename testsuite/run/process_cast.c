/* @cast into a program's own types (process_cast.stp): use() gets a
 * struct point as a void pointer. */
struct point {
	int x;
	int y;
	const char *name;
};

/* (It reads every field, so that the compiler stores them all.) */
__attribute__((noinline)) int use(void *p)
{
	struct point *pt = p;

	return pt->x + pt->y + pt->name[0];
}

int main(void)
{
	struct point pt = { 3, 4, "here" };

	return use(&pt) != 3 + 4 + 'h';
}
