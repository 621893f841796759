/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: load a stapx kernel module, relay its output, unload it.
 *
 *   stapx-run [-o FILE] [-b] [-S SIZE[,N]] [-T SECONDS] [-F]
 *             [-c CMD | -x PID] [-v] MODULE.ko [PARAM=VALUE...]
 *   stapx-run -A NAME [-o FILE] [-b] [-S SIZE[,N]] [-T SECONDS] [-v]
 *   stapx-run -L | -h
 *
 * Wire format and file layout: ../transport/protocol.h.
 *
 * Structure: one event loop (poll on the ctl file, a signalfd, the relay
 * files and a pipe from the command thread, plus a 50 ms tick that reads
 * all relay files whether or not relay reported them readable).  Commands
 * are written to ctl from a short-lived helper thread because the module
 * runs begin/end probes synchronously inside that write(); meanwhile the
 * loop keeps draining relay buffers and control messages, so a large end
 * report or a burst of warnings is not lost while "stop" is in progress.
 * While "start" is in progress (it arms the probes) the loop only waits
 * for it to return: see event_loop().
 * ctl is opened twice (read side, write side) so the blocking write can
 * never hold up a read on the same open file.
 *
 * Records are parsed in place from each CPU's relay buffer, mapped
 * read-only (relay.c), and merged by sequence number.  A record is held
 * back while a lower sequence number may still be in flight on another
 * CPU, but only for GAP_MS (environment STAPX_GAP_MS overrides); after
 * that the gap is given up and a record that turns up later is printed
 * when it arrives.
 *
 * The -c command is forked before the module is loaded and waits on a
 * pipe, so that its PID can go with "start" (what target() returns in
 * begin probes already); it execs once the module reports its probes
 * armed.  Like stap, a command without shell syntax is run directly
 * (execvp of its words), so target() is the command itself, not a shell.
 *
 * A script with input.char/input.line probes has the procfs file
 * /proc/systemtap/MODULE/__stdin; once the probes are armed, what
 * stapx-run reads on its standard input is written there, a byte per
 * write (each write runs the input probes once), until end of file.
 *
 * Flight recorder (-F, with a module stapx built with -F): without -o,
 * once the probes are armed and what the begin probes printed is written,
 * stapx-run detaches and exits, leaving the module loaded and running
 * (its relay buffer then keeps the latest output: transport.c); with -o
 * it goes on in the background instead (a child process, whose PID it
 * prints).  -A NAME attaches to a loaded module: it is not loaded or
 * started again, and the session ends as any other.  The module admits
 * one reader of its ctl file at a time, so a second -A is refused.  -L
 * lists the stapx modules loaded, attached or detached.
 *
 * The module is loaded with the local time zone as parameters (for
 * tz_gmtoff() and tz_name()); a script's system(cmd) arrives as a control
 * message, and the command runs as /bin/sh -c cmd in the background once
 * the output before it is written out.
 *
 * Build: gcc -static -O2 -Wall -Wextra -o stapx-run stapx-run.c module_load.c relay.c
 *        output.c flight.c children.c state.c -pthread
 */
#include "stapx-run.h"

static long timeout_s;           /* -T SECONDS */

/* -S SIZE[,N]: SIZE in megabytes, N files at most. */
static int parse_rotation(const char *arg)
{
	unsigned long long size;
	unsigned long keep = 0;
	char *end;

	errno = 0;
	size = strtoull(arg, &end, 10);
	if (!errno && *end == ',' && end[1]) {
		keep = strtoul(end + 1, &end, 10);
		if (keep == 0)
			errno = EINVAL;
	}
	if (errno || *end || size == 0 || size > 1ULL << 20 || arg[0] == '-') {
		fprintf(stderr, "ERROR: bad -S '%s' (SIZE[,N]: SIZE megabytes "
			"per file, 1 or more; at most N files)\n", arg);
		return -1;
	}
	rotate_size = size << 20;
	rotate_keep = keep;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stapx-run [-o FILE] [-b] [-S SIZE[,N]] [-T SECONDS] "
		"[-c CMD | -x PID] [-v] [-h]\n"
		"                 MODULE.ko [PARAM=VALUE...]\n"
		"  -o FILE  write the script's output to FILE instead of "
		"stdout\n"
		"           (strftime(3) conversions in FILE are expanded)\n"
		"  -b       bulk mode: each CPU's records to FILE_cpuN "
		"(stpd_cpuN without -o),\n"
		"           for stapx-merge\n"
		"  -S SIZE[,N]  start a new output file, FILE.0, FILE.1, "
		"..., when one would\n"
		"           pass SIZE megabytes; keep only the last N\n"
		"  -T SECONDS  end the session after SECONDS\n"
		"  -F       flight recorder: without -o, detach once the "
		"probes run and leave\n"
		"           the module running; with -o, go on in the "
		"background (prints its PID)\n"
		"  -A NAME  attach to the loaded module NAME (see -F) and "
		"end it as usual\n"
		"  -L       list the stapx modules loaded, and whether a "
		"stapx-run is attached\n"
		"  -c CMD   run CMD once the probes are armed (target() is "
		"its PID);\n"
		"           stop when it exits\n"
		"  -x PID   target() returns PID (the session does not "
		"watch it)\n"
		"  -v       print progress messages to stderr\n"
		"  -h       show this help\n");
}

/* ------------------------------------------------------------------ */
/* Commands to the module                                             */
/* ------------------------------------------------------------------ */

static void *cmd_main(void *arg)
{
	const char *cmd = arg;
	char line[32];
	int len, err = 0;
	ssize_t n;

	len = snprintf(line, sizeof(line), "%s\n", cmd);
	do
		n = write(ctl_wfd, line, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = errno;
	n = write(cmd_pipe[1], &err, sizeof(err));
	(void)n;
	return NULL;
}

static int send_cmd(const char *cmd)
{
	int rc;

	vlog("sending \"%s\"", cmd);
	cmd_name = cmd;
	cmd_is_stop = strcmp(cmd, STPX_CMD_STOP) == 0;
	rc = pthread_create(&cmd_thread, NULL, cmd_main, (void *)cmd);
	if (rc) {
		fprintf(stderr, "ERROR: pthread_create: %s\n", strerror(rc));
		return -1;
	}
	cmd_busy = true;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Session                                                            */
/* ------------------------------------------------------------------ */

enum state { STARTING, RUNNING, STOPPING, FINISHED };

static enum state state = STARTING;
static bool stop_wanted;          /* stop requested, not yet sent */
static bool stop_sent;
static bool start_failed;
static bool got_done;
/* The module's __stdin file (input.* probes), -1 if none or stdin ended. */
static char stdin_path[256];
static int stdin_relay = -1;
static long long stop_returned = -1; /* when the "stop" write returned */
static unsigned long d_errors, d_skipped, d_lost;
static unsigned long e_seen;
static const char *target_cmd;
static long target_x;            /* -x PID */
static long long deadline = -1;  /* -T: when to stop, now_ms() time */
static bool flight;              /* -F */
static bool detached;            /* -F without -o: leave it running */
static const char *attach_name;  /* -A NAME */
static char start_cmd[32];

static void maybe_send_stop(void)
{
	if (!stop_wanted || stop_sent || cmd_busy || state != RUNNING)
		return;
	if (send_cmd(STPX_CMD_STOP) == 0) {
		stop_sent = true;
		state = STOPPING;
	} else {
		state = FINISHED;
	}
}

static void request_stop(const char *why)
{
	if (stop_wanted) {
		if (state == STOPPING)
			vlog("%s: already stopping", why);
		return;
	}
	vlog("stopping: %s", why);
	stop_wanted = true;
	maybe_send_stop();
}

static void handle_msg(char *m, size_t n)
{
	char type;
	const char *text;

	while (n && (m[n - 1] == '\n' || m[n - 1] == '\0'))
		n--;
	m[n] = '\0';
	if (!n)
		return;
	type = m[0];
	text = n >= 2 ? m + 2 : "";

	switch (type) {
	case STPX_MSG_STARTED:
		vlog("probes armed");
		stdin_relay = open(stdin_path, O_WRONLY | O_CLOEXEC);
		if (stdin_relay >= 0)
			vlog("relaying standard input to %s", stdin_path);
		if (state == STARTING)
			state = RUNNING;
		if (stop_wanted)
			maybe_send_stop();
		else
			release_target();
		break;
	case STPX_MSG_START_FAILED:
		fprintf(stderr, "ERROR: %s\n", text);
		start_failed = true;
		state = FINISHED;
		break;
	case STPX_MSG_ERROR:
		e_seen++;
		fprintf(stderr, "%s\n", text);
		break;
	case STPX_MSG_WARNING:
		fprintf(stderr, "%s\n", text);
		break;
	case STPX_MSG_EXIT:
		request_stop("script exited");
		break;
	case STPX_MSG_SYSTEM:
		run_system(text);
		break;
	case STPX_MSG_DONE:
		if (sscanf(text, "%lu %lu %lu", &d_errors, &d_skipped,
			   &d_lost) != 3)
			fprintf(stderr, "ERROR: bad done message '%s'\n", text);
		vlog("session done: %lu errors, %lu skipped, %lu lost",
		     d_errors, d_skipped, d_lost);
		got_done = true;
		break;
	default:
		vlog("unknown control message '%s'", m);
		break;
	}
}

static void read_ctl(void)
{
	char m[STPX_MSG_MAX + 1];

	for (;;) {
		ssize_t n = read(ctl_rfd, m, STPX_MSG_MAX);

		if (n > 0) {
			handle_msg(m, n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			fprintf(stderr, "ERROR: read ctl: %s\n",
				strerror(errno));
		break;
	}
}

static void reap_children(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == target_pid) {
			target_pid = -1;
			request_stop("command exited");
		}
	}
}

static void handle_signals(void)
{
	struct signalfd_siginfo si;

	while (read(sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			reap_children();
			break;
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
			request_stop(strsignal(si.ssi_signo));
			break;
		}
	}
}

static void handle_cmd_done(void)
{
	int err;

	if (read(cmd_pipe[0], &err, sizeof(err)) != sizeof(err))
		return;
	pthread_join(cmd_thread, NULL);
	cmd_busy = false;
	if (err)
		fprintf(stderr, "ERROR: Couldn't send \"%s\" to module: %s\n",
			cmd_name, strerror(err));
	if (!cmd_is_stop) {
		if (err) {
			start_failed = true;
			state = FINISHED;
		}
		maybe_send_stop();
	} else {
		stop_returned = now_ms();
		if (err)
			state = FINISHED;
	}
}

/* What standard input has, a byte per write to the module's __stdin. */
static void relay_stdin(void)
{
	char buf[4096];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf)), i;

	for (i = 0; i < n; i++)
		if (write(stdin_relay, buf + i, 1) != 1) {
			vlog("__stdin: %s", strerror(errno));
			n = 0;
			break;
		}
	if (n <= 0) {
		close(stdin_relay);
		stdin_relay = -1;
	}
}

static void event_loop(void)
{
	long long next_tick = now_ms() + TICK_MS;
	long long next_scan = now_ms() + RESCAN_MS;
	struct pollfd *pfd = NULL;
	int i, npfd = 0;
	/*
	 * While a gap holds records back, a finished sub-buffer stays
	 * unreleased and relay reports its file readable all along: the
	 * tick is what reads it then, not poll().
	 */
	bool holding = false;

	while (state != FINISHED && !got_done) {
		long long now = now_ms();
		int timeout = next_tick > now ? (int)(next_tick - now) : 0;
		int n = 0;

		if (cmd_busy && !cmd_is_stop) {
			/*
			 * "start" arms the probes, patching kernel text, then
			 * runs the begin probes. Meanwhile this thread makes
			 * no system call a probe may sit in (read() of the
			 * relay, ctl and signal files goes through ksys_read
			 * and vfs_read): under QEMU's TCG, a reader inside a
			 * function whose kprobe was being armed returned to
			 * address 0 (a kernel oops) in a few starts out of a
			 * hundred. It waits for the command to return; what
			 * the begin probes wrote is read after it.
			 */
			struct pollfd w = { .fd = cmd_pipe[0], .events = POLLIN };

			if (poll(&w, 1, -1) < 0 && errno != EINTR) {
				perror("poll");
				break;
			}
			if (w.revents)
				handle_cmd_done();
			next_tick = 0;
			continue;
		}

		if (npfd != 4 + ntraces) {
			struct pollfd *p = realloc(pfd, (4 + ntraces) *
						   sizeof(*pfd));

			if (!p) {
				perror("realloc");
				break;
			}
			pfd = p;
			npfd = 4 + ntraces;
		}
		pfd[n++] = (struct pollfd){ .fd = ctl_rfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = cmd_pipe[0],
					    .events = POLLIN };
		for (i = 0; i < ntraces; i++)
			pfd[n++] = (struct pollfd){ .fd = traces[i].fd,
						    .events = holding ? 0 : POLLIN };
		/* Last, and only while relaying (fd -1 is ignored). */
		pfd[n++] = (struct pollfd){ .fd = stdin_relay >= 0 ?
					    STDIN_FILENO : -1, .events = POLLIN };
		n_polls++;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR) {
			perror("poll");
			break;
		}
		if (pfd[1].revents)
			handle_signals();
		if (pfd[0].revents)
			read_ctl();
		if (pfd[2].revents)
			handle_cmd_done();
		for (i = 0; i < ntraces; i++)
			if (pfd[3 + i].revents)
				next_tick = 0;
		if (pfd[3 + ntraces].revents)
			relay_stdin();
		now = now_ms();
		if (now >= next_scan) {
			open_traces(trace_dir);
			next_scan = now + RESCAN_MS;
		}
		if (now >= next_tick) {
			holding = pump();
			next_tick = now + TICK_MS;
		}
		if (out_broken && !stop_wanted)
			request_stop("output error");
		if (deadline >= 0 && now >= deadline && !stop_wanted)
			request_stop("timeout (-T)");
		if (flight && state == RUNNING && !cmd_busy && !stop_wanted) {
			flight = false;
			if (!out_path) {
				detached = true;
				break;
			}
			if (go_background() < 0)
				request_stop("cannot go to the background");
		}
		if (stop_returned >= 0 && !got_done &&
		    now - stop_returned > DONE_TIMEOUT_MS) {
			fprintf(stderr, "ERROR: module did not finish "
				"stopping\n");
			break;
		}
	}
	free(pfd);
	/* Pick up anything queued with or after 'D'. */
	read_ctl();
}

static void drain(void)
{
	open_traces(trace_dir);
	/* Until no relay file shows anything new. */
	while (read_traces() > 0)
		;
	emit_records(EMIT_ALL);
}

int main(int argc, char **argv)
{
	char path[sizeof(trace_dir) + 16];
	const char *modpath;
	char *name;
	sigset_t mask;
	int fd, opt, status = 0;
	bool stdout_closed = fcntl(STDOUT_FILENO, F_GETFD) < 0;

	/* A closed 0, 1 or 2 would go to the next open() (a debugfs file,
	 * the output file): each is held by /dev/null instead. */
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return 1;

	while ((opt = getopt(argc, argv, "+o:bS:T:FA:Lc:x:vh")) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
		case 'b':
			bulk = true;
			break;
		case 'S':
			if (parse_rotation(optarg) < 0)
				return 1;
			break;
		case 'T': {
			char *end;
			long secs;

			errno = 0;
			secs = strtol(optarg, &end, 10);
			if (errno || *end || secs <= 0 || secs > INT_MAX) {
				fprintf(stderr, "ERROR: bad -T SECONDS '%s' "
					"(a whole number, 1 or more)\n", optarg);
				return 1;
			}
			timeout_s = secs;
			break;
		}
		case 'F':
			flight = true;
			break;
		case 'A':
			attach_name = optarg;
			break;
		case 'L':
			return list_modules();
		case 'c':
			target_cmd = optarg;
			break;
		case 'x': {
			char *end;

			errno = 0;
			target_x = strtol(optarg, &end, 10);
			if (errno || *end || target_x <= 0 ||
			    target_x > INT_MAX) {
				fprintf(stderr, "ERROR: bad -x PID '%s'\n",
					optarg);
				return 1;
			}
			break;
		}
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if ((optind >= argc && !attach_name) || (target_cmd && target_x)) {
		usage(stderr);
		return 1;
	}
	if (attach_name && (optind < argc || flight || target_cmd ||
			    target_x)) {
		fprintf(stderr, "ERROR: -A NAME takes no module file, -F, -c "
			"or -x: the module runs already\n");
		return 1;
	}
	if (flight && target_cmd) {
		fprintf(stderr, "ERROR: -F and -c cannot be used together: "
			"the command would outlive the session\n");
		return 1;
	}
	if (rotate_size && !out_path) {
		fprintf(stderr, "ERROR: -S needs -o FILE: the output files "
			"are FILE.0, FILE.1, ...\n");
		return 1;
	}
	modpath = attach_name ? NULL : argv[optind];
	name = attach_name ? strdup(attach_name) : module_name(modpath);
	if (attach_name && name &&
	    (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
	     strlen(name))) {
		fprintf(stderr, "ERROR: bad module name '%s'\n", name);
		return 1;
	}
	if (!name || !*name || strlen(name) > 200) {
		fprintf(stderr, "ERROR: bad module path '%s'\n", modpath);
		return 1;
	}
	snprintf(stdin_path, sizeof(stdin_path), "/proc/systemtap/%s/__stdin", name);
	if (stdout_closed && !out_path && !bulk) {
		fprintf(stderr, "ERROR: standard output is closed: give -o FILE "
			"for the script's output\n");
		return 1;
	}
	if (modpath && check_module(modpath) < 0)
		return 1;

	/* For test rigs with very slow (emulated) CPUs; see the top. */
	if (getenv("STAPX_GAP_MS"))
		gap_ms = atoll(getenv("STAPX_GAP_MS"));

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &orig_mask);
	sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_fd < 0 || pipe2(cmd_pipe, O_CLOEXEC) < 0) {
		perror("signalfd/pipe");
		return 1;
	}

	if (output_open() < 0)
		return 1;

	if (ensure_debugfs() < 0)
		return 1;
	if (target_cmd && fork_target(target_cmd) < 0)
		return 1;
	if (!attach_name && insert_module(modpath, name, argv + optind + 1,
					  argc - optind - 1) < 0) {
		status = 1;
		goto out_target;
	}
	if (target_pid > 0)
		snprintf(start_cmd, sizeof(start_cmd), "%s %d", STPX_CMD_START,
			 (int)target_pid);
	else if (target_x)
		snprintf(start_cmd, sizeof(start_cmd), "%s %ld", STPX_CMD_START,
			 target_x);
	else
		snprintf(start_cmd, sizeof(start_cmd), "%s", STPX_CMD_START);

	snprintf(trace_dir, sizeof(trace_dir), "%s/%s/%s", DEBUGFS_PATH,
		 STPX_DEBUGFS_DIR, name);
	snprintf(path, sizeof(path), "%s/%s", trace_dir, STPX_CTL_FILE);
	ctl_rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (attach_name && ctl_rfd < 0) {
		if (errno == ENOENT)
			fprintf(stderr, "ERROR: no stapx module '%s' is loaded "
				"(stapx-run -L lists them)\n", name);
		else if (errno == EBUSY)
			fprintf(stderr, "ERROR: module '%s' has a stapx-run "
				"attached already\n", name);
		else
			fprintf(stderr, "ERROR: Couldn't open %s: %s\n", path,
				strerror(errno));
		output_close();
		free(name);
		return 1;
	}
	if (ctl_rfd >= 0)
		ctl_wfd = open(path, O_WRONLY | O_CLOEXEC);
	if (ctl_rfd < 0 || ctl_wfd < 0) {
		fprintf(stderr, "ERROR: Couldn't open %s: %s\n", path,
			strerror(errno));
		status = 1;
	} else if (open_traces(trace_dir) < 0) {
		status = 1;
	} else if (!attach_name && send_cmd(start_cmd) < 0) {
		status = 1;
	} else {
		if (attach_name) {
			vlog("attached to %s", name);
			state = RUNNING;
		}
		if (timeout_s)
			deadline = now_ms() + timeout_s * 1000;
		event_loop();
		if (detached) {
			/* -F without -o: what the begin probes printed is out;
			 * the rest stays in the module's buffer for -A. */
			pump();
		} else {
			if (cmd_busy) {
				/* Wait for the module to return from the
				 * write. */
				int err;

				if (read(cmd_pipe[0], &err, sizeof(err)) < 0)
					perror("read");
				pthread_join(cmd_thread, NULL);
				cmd_busy = false;
			}
			drain();
		}
	}

	if (ctl_rfd >= 0)
		close(ctl_rfd);
	if (ctl_wfd >= 0)
		close(ctl_wfd);
	unmap_traces();
	output_close();
	if (out_broken && out_errno != EPIPE) {
		fprintf(stderr, "ERROR: Couldn't write output: %s\n",
			strerror(out_errno));
		status = 1;
	}

	if (target_go >= 0) {
		/* Never released: it exits on EOF without running. */
		close(target_go);
		target_go = -1;
	}
	if (target_pid > 0) {
		kill(target_pid, SIGKILL);
		waitpid(target_pid, NULL, 0);
		target_pid = -1;
	}
	if (verbose > 1)
		vlog("%lu polls, %lu reads of all relay files, %lu records",
		     n_polls, n_pumps, n_records);
	if (detached) {
		fprintf(stderr, "Disconnecting from stapx module %s.\n"
			"To reconnect, type \"stapx-run -A %s\"\n", name,
			name);
		free(name);
		return status;
	}
	if (remove_module(name) < 0)
		status = 1;

	if (d_errors || d_skipped)
		fprintf(stderr, "WARNING: Number of errors: %lu, skipped "
			"probes: %lu\n", d_errors, d_skipped);
	if (d_lost + corrupt_count)
		fprintf(stderr, "WARNING: There were %lu transport "
			"failures.\n", d_lost + corrupt_count);
	if (start_failed || d_errors || e_seen)
		status = 1;
	free(name);
	return status;

out_target:
	if (target_go >= 0)
		close(target_go);
	if (target_pid > 0)
		waitpid(target_pid, NULL, 0);
	free(name);
	return status;
}
