/*
 * For tapset_proc_mem_pid: touches 16 MiB, reads its own /proc/self/statm
 * and opens a path that carries those numbers (the probe compares them with
 * proc_mem_*_pid()), then forks a child that opens a path while the parent
 * waits for it (the probe reads the parent by PID from the child).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	size_t n = 16 << 20;
	char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long size = 0, rss = 0, shr = 0, txt = 0, lib = 0, data = 0;
	char statm[128], path[200];
	pid_t child;
	int i;

	if (m == MAP_FAILED)
		return 1;
	memset(m, 1, n);
	/* Twice: the first read faults in whatever reading needs. */
	for (i = 0; i < 2; i++) {
		int fd = open("/proc/self/statm", O_RDONLY);
		ssize_t k = read(fd, statm, sizeof(statm) - 1);

		close(fd);
		statm[k > 0 ? k : 0] = '\0';
		sscanf(statm, "%lu %lu %lu %lu %lu %lu", &size, &rss, &shr, &txt, &lib, &data);
		snprintf(path, sizeof(path), "/stapx-pm-self %lu %lu %lu %lu %lu ", size, rss, shr, txt, data);
	}
	open(path, O_RDONLY);
	/*
	 * The child's path on the stack: a fork copies anonymous pages' page
	 * table entries, not those of the program's file, which the child would
	 * fault in, and a probe's reads cannot.
	 */
	strcpy(path, "/stapx-pm-child");
	child = fork();
	if (child == 0) {
		open(path, O_RDONLY);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	return m[n - 1] - 1;
}
