/*
 * syscall_prog_proc: resource limits and ptrace with fixed arguments:
 * prlimit64 (set, query), setrlimit (with RLIM_INFINITY), and a child
 * that asks to be traced and stops, which the parent then queries
 * (PTRACE_GETEVENTMSG) and continues; plus PTRACE_PEEKDATA on a process
 * it does not trace (ESRCH).  Raw syscall() so that libc cannot swap in
 * another call or argument layout.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	struct rlimit files = { 64, 128 }, core = { 0, RLIM_INFINITY }, old;
	unsigned long msg = 1;
	int status;
	pid_t child;

	syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &files, NULL);
	syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &old);
	syscall(SYS_setrlimit, RLIMIT_CORE, &core);
	syscall(SYS_setrlimit, RLIMIT_NOFILE, &core); /* above the hard limit: EPERM */

	child = fork();
	if (child == 0) {
		syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	/* Set-up failures show in the test's stdout diff. */
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) {
		printf("set-up: the child did not stop (status 0x%x): %m\n", status);
		return 1;
	}
	syscall(SYS_ptrace, PTRACE_GETEVENTMSG, child, 0, &msg);
	syscall(SYS_ptrace, PTRACE_CONT, child, 0, 0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
		printf("set-up: the child did not exit (status 0x%x): %m\n", status);
		return 1;
	}
	syscall(SYS_ptrace, PTRACE_PEEKDATA, getpid(), 0x1000, 0); /* not traced: ESRCH */
	return 0;
}
