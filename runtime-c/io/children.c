/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: the processes it starts: the -c command (forked before the
 * module loads, released to exec once the probes are armed) and the
 * commands of the script's system() calls.
 */
#include "stapx-run.h"

pid_t target_pid = -1;
int target_go = -1;	/* write end: the command may exec */
sigset_t orig_mask;	/* the signal mask stapx-run started with */

/* Shell syntax in CMD: then it runs as /bin/sh -c CMD. */
static bool needs_shell(const char *cmd)
{
	return strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}\n") != NULL;
}

/*
 * Fork the -c command, stopped before exec until release_target().
 * Returns 0, or -1 with the error printed.
 */
int fork_target(const char *target_cmd)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0) {
		fprintf(stderr, "ERROR: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ERROR: fork: %s\n", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0) {
		char *words[64], *copy, *w;
		char c;
		int n = 0;

		close(go[1]);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		/* EOF without a byte: the session never started. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		copy = strdup(target_cmd);
		if (!needs_shell(target_cmd) && copy) {
			for (w = strtok(copy, " \t"); w && n < 63;
			     w = strtok(NULL, " \t"))
				words[n++] = w;
			words[n] = NULL;
		}
		if (n > 0 && n < 63) {
			execvp(words[0], words);
			fprintf(stderr, "ERROR: exec %s: %s\n", words[0],
				strerror(errno));
		} else {
			execl("/bin/sh", "sh", "-c", target_cmd, (char *)NULL);
			fprintf(stderr, "ERROR: exec /bin/sh: %s\n",
				strerror(errno));
		}
		_exit(127);
	}
	close(go[0]);
	target_pid = pid;
	target_go = go[1];
	vlog("forked command, pid %d", (int)pid);
	return 0;
}

/* Let the forked command exec. */
void release_target(void)
{
	char c = 1;

	if (target_go < 0)
		return;
	if (write(target_go, &c, 1) != 1)
		fprintf(stderr, "ERROR: Couldn't start command: %s\n",
			strerror(errno));
	close(target_go);
	target_go = -1;
	vlog("released command, pid %d", (int)target_pid);
}

/*
 * system(cmd): run /bin/sh -c cmd in the background, its output after the
 * script output that is in order so far. Its exit is reaped with the
 * others (reap_children); it is not waited for at the end.
 */
void run_system(const char *cmd)
{
	pid_t pid;
	int out_fd;

	pump();
	output_flush();
	fflush(stderr);
	out_fd = output_fileno();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "WARNING: system(): fork: %s\n",
			strerror(errno));
		return;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		/* Only async-signal-safe calls here: the command thread may
		 * be running. */
		if (fd >= 0 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	vlog("system(): pid %d runs '%s'", (int)pid, cmd);
}
