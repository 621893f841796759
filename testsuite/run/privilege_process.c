/* privilege_process.stp's program: a child that becomes user nobody
 * (65534) calls work(2) and exits; then the parent, still root, calls
 * work(1). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long work(long n)
{
	__asm__ volatile("" ::: "memory");
	return n * 2;
}

int main(void)
{
	int status = 0;
	pid_t child = fork();

	if (child == 0) {
		if (setuid(65534))
			return 2;
		work(2);
		return 0;
	}
	waitpid(child, &status, 0);
	work(1);
	printf("child %d\n", WEXITSTATUS(status));
	return 0;
}
