/* Calls getpid() until killed. */
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	for (;;)
		syscall(SYS_getpid);
}
