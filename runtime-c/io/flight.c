/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: sessions that outlive it (stapx-run.c's header says how -F
 * and -A work): going on in the background, and listing the modules left
 * loaded.
 */
#include "stapx-run.h"

/*
 * -F with -o: the rest of the session in a child, in a session of its
 * own; the parent prints the child's PID and exits, leaving the module to
 * it. Only this thread runs here (the "start" command has returned).
 */
int go_background(void)
{
	pid_t pid;
	int fd;

	output_flush();
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ERROR: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid > 0) {
		printf("%d\n", (int)pid);
		fflush(stdout);
		_exit(0);
	}
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	vlog("in the background, pid %d", (int)getpid());
	return 0;
}

/* -L: each loaded stapx module, and whether a stapx-run has it. */
int list_modules(void)
{
	char dir[] = DEBUGFS_PATH "/" STPX_DEBUGFS_DIR;
	struct dirent *de;
	DIR *d;

	if (ensure_debugfs() < 0)
		return 1;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "ERROR: Couldn't open %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		char ctl[sizeof(dir) + 2 * NAME_MAX];
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(ctl, sizeof(ctl), "%s/%s/%s", dir, de->d_name,
			 STPX_CTL_FILE);
		fd = open(ctl, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			printf("%s (detached)\n", de->d_name);
		} else if (errno == EBUSY) {
			printf("%s (attached)\n", de->d_name);
		}
	}
	closedir(d);
	return 0;
}
