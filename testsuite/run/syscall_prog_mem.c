/*
 * syscall_prog_mem: memory and signal-stack system calls with fixed
 * addresses (mappings placed with MAP_FIXED_NOREPLACE, so the output does
 * not depend on ASLR): mremap (grow to a fixed place, shrink in place),
 * msync (good and misaligned), sigaltstack (install, auto-disarm,
 * disable, query).  Raw syscall() so that libc cannot swap in another
 * call or argument layout.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAP_A 0x20000000UL
#define MAP_B 0x30000000UL
#define STACK 0x40000000UL
#define STACK_SIZE 65536
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* <linux/signal.h>; glibc does not have it */
#endif

static int map(unsigned long addr, size_t len)
{
	void *p = mmap((void *)addr, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return p == (void *)addr ? 0 : -1;
}

int main(void)
{
	stack_t ss, old;

	if (map(MAP_A, 4096) || map(STACK, STACK_SIZE)) {
		printf("set-up: mmap: %m\n"); /* shows in the test's stdout diff */
		return 1;
	}
	syscall(SYS_mremap, MAP_A, 4096, 8192, MREMAP_MAYMOVE | MREMAP_FIXED, MAP_B);
	syscall(SYS_mremap, MAP_B, 8192, 4096, 0, 0);
	syscall(SYS_msync, MAP_B, 4096, MS_SYNC | MS_INVALIDATE);
	syscall(SYS_msync, MAP_B + 1, 4096, MS_ASYNC); /* misaligned: EINVAL */

	ss.ss_sp = (void *)STACK;
	ss.ss_flags = 0;
	ss.ss_size = STACK_SIZE;
	syscall(SYS_sigaltstack, &ss, NULL);
	ss.ss_flags = SS_AUTODISARM;
	syscall(SYS_sigaltstack, &ss, &old);
	ss.ss_sp = NULL;
	ss.ss_flags = SS_DISABLE;
	ss.ss_size = 0;
	syscall(SYS_sigaltstack, &ss, NULL);
	syscall(SYS_sigaltstack, NULL, &old);
	return 0;
}
