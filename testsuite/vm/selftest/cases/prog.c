/* Harness self-test: a test's own program (NAME.c), built static on the
 * host and run by the trigger as ./prog; it pokes the fake module twice. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i;

	for (i = 0; i < 2; i++) {
		int fd = open("/sys/kernel/debug/prog/poke", O_WRONLY);

		if (fd < 0 || write(fd, "1", 1) != 1)
			return 1;
		close(fd);
	}
	printf("%s ran\n", argv[0]);
	return 0;
}
