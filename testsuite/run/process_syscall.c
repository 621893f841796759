/* The program process_syscall.stp watches: three known system calls. */
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	syscall(SYS_getpid);
	syscall(SYS_write, 1, "hello", 5);
	syscall(SYS_close, 12345);	/* fails: EBADF */
	return 0;
}
