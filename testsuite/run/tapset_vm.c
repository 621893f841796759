/* Memory events for tapset_vm: a 3-page private anonymous mapping at a
 * fixed address, a read then a write of its second page (the zero page,
 * then its copy), a write of its first page, a child that writes that
 * page again (copy-on-write), the unmap, then a 64 KiB brk. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	char *p = mmap((void *)0x200000000UL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	volatile char c;
	pid_t k;

	if (p == MAP_FAILED)
		return 1;
	c = p[4096];
	(void)c;
	p[4096] = 1;
	p[0] = 2;
	k = fork();
	if (k == 0) {
		p[0] = 3;
		_exit(0);
	}
	waitpid(k, 0, 0);
	munmap(p, 3 * 4096);
	sbrk(65536);
	return 0;
}
