/*
 * syscall_prog_ia32: 32-bit (ia32) system calls from a 64-bit program,
 * made with int $0x80, which runs the kernel's ia32 entry points
 * (__ia32_sys_*, __ia32_compat_sys_*) with the arguments in ebx, ecx,
 * edx, ...: lchown16 of a missing file, setreuid16 with "no change",
 * nice 0, sgetmask, and the 32-bit getitimer.  Static buffers, so that
 * their addresses fit in 32 bits (the program is static, not PIE).
 */
#include <stdio.h>

static long ia32(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return ret;
}

static char path[] = "/nonexistent/stapx-ia32";
static int itv[4];

int main(void)
{
	ia32(16, (long)path, 0xffff, 0xffff);	/* lchown16 */
	ia32(70, 0xffff, 0xffff, 0);		/* setreuid16 */
	ia32(34, 0, 0, 0);			/* nice */
	ia32(68, 0, 0, 0);			/* sgetmask */
	ia32(105, 0, (long)itv, 0);		/* getitimer (compat) */
	return 0;
}
