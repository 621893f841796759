/* tapset_namespaces.stp's program. It forks A, which moves into a new
 * user namespace and makes a new pid namespace for its children; this
 * program (root outside) maps user IDs 1000 and 2001 there to 0 and 5
 * outside, and group IDs 2000 and 3001 to 0 and 7, then takes effective
 * user ID 42, which has no mapping there. A forks B, process 1 of the new
 * pid namespace, and prints B's PID as the initial namespace numbers it.
 * B starts a session of its own, takes real user ID 1000 and effective
 * 2001 and real group ID 2000 and effective 3001 (as the new namespace
 * numbers them), and starts a thread (thread 2 there) that calls
 * lseek(-1, 0x5ca1ab1e, SEEK_SET) every 10 ms until B is killed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *marker(void *arg)
{
	for (;;) {
		lseek(-1, 0x5ca1ab1e, SEEK_SET);
		poll(NULL, 0, 10);
	}
	return arg;
}

static int write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	int up[2], down[2];
	pid_t a, b;
	pthread_t th;
	char c;

	if (pipe(up) || pipe(down))
		return 1;
	a = fork();
	if (a < 0)
		return 1;
	if (a == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID)) {
			perror("unshare");
			return 1;
		}
		if (write(up[1], "u", 1) != 1 || read(down[0], &c, 1) != 1)
			return 1;
		b = fork();
		if (b < 0)
			return 1;
		if (b == 0) {
			if (setsid() < 0 || setresgid(2000, 3001, 2000) || setresuid(1000, 2001, 1000)) {
				perror("B");
				return 1;
			}
			if (pthread_create(&th, NULL, marker, NULL))
				return 1;
			pthread_join(th, NULL);
			return 0;
		}
		printf("%d\n", (int)b);
		fflush(stdout);
		waitpid(b, NULL, 0);
		return 0;
	}
	if (read(up[0], &c, 1) != 1)
		return 1;
	if (write_file(a, "uid_map", "1000 0 1\n2001 5 1\n") || write_file(a, "gid_map", "2000 0 1\n3001 7 1\n")) {
		perror("map");
		return 1;
	}
	if (setresuid(0, 42, 0) || write(down[1], "m", 1) != 1)
		return 1;
	waitpid(a, NULL, 0);
	return 0;
}
