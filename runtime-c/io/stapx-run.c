/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: load a stapx kernel module, relay its output, unload it.
 *
 *   stapx-run [-o FILE] [-c CMD | -x PID] [-v] [-h] MODULE.ko [PARAM=VALUE...]
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
 * Records are parsed from per-CPU byte buffers (reads may end inside a
 * record) and merged by sequence number.  A record is held back while a
 * lower sequence number may still be in flight on another CPU, but only
 * for GAP_MS (environment STAPX_GAP_MS overrides); after that the gap is
 * given up and a record that turns up later is printed when it arrives.
 *
 * The -c command is forked before the module is loaded and waits on a
 * pipe, so that its PID can go with "start" (what target() returns in
 * begin probes already); it execs once the module reports its probes
 * armed.  Like stap, a command without shell syntax is run directly
 * (execvp of its words), so target() is the command itself, not a shell.
 *
 * The module is loaded with the local time zone as parameters (for
 * tz_gmtoff() and tz_name()); a script's system(cmd) arrives as a control
 * message, and the command runs as /bin/sh -c cmd in the background once
 * the output before it is written out.
 *
 * Build: gcc -static -O2 -Wall -Wextra -o stapx-run stapx-run.c -pthread
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../transport/protocol.h"

#define DEBUGFS_PATH "/sys/kernel/debug"
#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC 0x64626720
#endif

#define TICK_MS 50          /* periodic read of every relay file */
#define GAP_MS 100          /* longest hold-back for a missing seq */
#define DONE_TIMEOUT_MS 5000 /* 'D' overdue after "stop" returned */
#define RESCAN_MS 1000      /* look for traceN of newly onlined CPUs */
#define READ_CHUNK 65536
#define MAX_REC_LEN (16u << 20) /* larger lengths are garbage */

struct trace {
	int fd;
	int cpu;
	char *buf;
	size_t pos, len, cap; /* unparsed bytes are buf[pos..len) */
	bool head;            /* a complete record starts at pos */
	unsigned long long head_seq;
	size_t head_len;      /* payload length of that record */
	bool in_garbage;      /* resyncing after a bad header */
};

static int verbose;
static const char *out_path;
static FILE *out;
static bool out_broken;
static int out_errno;

static char trace_dir[256];
static struct trace *traces;
static int ntraces;

static unsigned long long next_seq = 1;
static long long gap_since = -1;
static long long gap_ms = GAP_MS;
static unsigned long corrupt_count;
static unsigned long n_polls, n_pumps, n_records;

static int ctl_rfd = -1, ctl_wfd = -1, sig_fd = -1;
static int cmd_pipe[2] = { -1, -1 };
static pthread_t cmd_thread;
static bool cmd_busy;
static bool cmd_is_stop;
static const char *cmd_name;

static void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("stapx-run: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stapx-run [-o FILE] [-c CMD | -x PID] [-v] [-h] "
		"MODULE.ko [PARAM=VALUE...]\n"
		"  -o FILE  write the script's output to FILE instead of "
		"stdout\n"
		"  -c CMD   run CMD once the probes are armed (target() is "
		"its PID);\n"
		"           stop when it exits\n"
		"  -x PID   target() returns PID (the session does not "
		"watch it)\n"
		"  -v       print progress messages to stderr\n"
		"  -h       show this help\n");
}

/* ------------------------------------------------------------------ */
/* Module loading                                                     */
/* ------------------------------------------------------------------ */

static int ensure_debugfs(void)
{
	struct statfs sfs;

	if (statfs(DEBUGFS_PATH, &sfs) == 0 &&
	    (unsigned long)sfs.f_type == DEBUGFS_MAGIC)
		return 0;
	vlog("mounting debugfs on %s", DEBUGFS_PATH);
	if (mount("debugfs", DEBUGFS_PATH, "debugfs", 0, NULL) != 0) {
		fprintf(stderr, "ERROR: Couldn't mount debugfs on %s: %s\n",
			DEBUGFS_PATH, strerror(errno));
		return -1;
	}
	return 0;
}

static char *module_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;
	char *name, *p;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".ko") == 0)
		n -= 3;
	name = strndup(base, n);
	if (!name)
		return NULL;
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/*
 * The module parameters the daemon always sets (protocol.h): the local
 * time zone now, for tz_gmtoff() and tz_name(), as seconds west of UTC and
 * the zone's name (from TZ or /etc/localtime; UTC without them); and the
 * daemon's real user ID, for is_myproc().
 */
static void session_params(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	char name[STPX_TZ_NAME_MAX];
	size_t i, n = 0;
	long gmtoff = 0;

	if (localtime_r(&now, &tm)) {
		/* A name such as "<+0530>" in TZ comes through as "+0530":
		 * keep only characters a module parameter can hold. */
		for (i = 0; tm.tm_zone && tm.tm_zone[i] && n < sizeof(name) - 1; i++)
			if (tm.tm_zone[i] > ' ' && tm.tm_zone[i] < 127 &&
			    tm.tm_zone[i] != '"')
				name[n++] = tm.tm_zone[i];
		gmtoff = -(long)tm.tm_gmtoff;
	}
	name[n] = '\0';
	snprintf(buf, size, "%s=%ld %s=%s %s=%ld", STPX_PARAM_TZ_GMTOFF, gmtoff,
		 STPX_PARAM_TZ_NAME, n ? name : "UTC", STPX_PARAM_USER_UID,
		 (long)getuid());
}

static int insert_module(const char *path, const char *name, char **params,
			 int nparams)
{
	char session[192];
	size_t len;
	char *args, *p;
	int fd, i, rc, err;

	session_params(session, sizeof(session));
	len = strlen(session) + 1;
	for (i = 0; i < nparams; i++)
		len += strlen(params[i]) + 1;
	args = malloc(len);
	if (!args) {
		perror("malloc");
		return -1;
	}
	p = stpcpy(args, session);
	for (i = 0; i < nparams; i++) {
		*p++ = ' ';
		p = stpcpy(p, params[i]);
	}
	vlog("module parameters: %s", args);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		rc = -1;
	} else {
		rc = syscall(SYS_finit_module, fd, args, 0);
		err = errno;
		close(fd);
	}
	free(args);
	if (rc != 0) {
		if (err == EEXIST)
			fprintf(stderr, "ERROR: Couldn't insert module '%s': "
				"%s (module '%s' is already loaded)\n",
				path, strerror(err), name);
		else
			fprintf(stderr,
				"ERROR: Couldn't insert module '%s': %s\n",
				path, strerror(err));
		if (err == ENOSYS || err == EPERM)
			fprintf(stderr, "stapx-run: hint: this kernel does not "
				"let us load modules (no CONFIG_MODULES, a "
				"container, or not root); 'stapx --vm' runs "
				"scripts in a QEMU guest instead\n");
		return -1;
	}
	vlog("inserted module '%s' as %s", path, name);
	return 0;
}

static int remove_module(const char *name)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0) {
			vlog("removed module %s", name);
			return 0;
		}
		if (errno != EAGAIN && errno != EBUSY && errno != EINTR)
			break;
		usleep(10000);
	}
	fprintf(stderr, "ERROR: Couldn't remove module '%s': %s\n", name,
		strerror(errno));
	return -1;
}

/* ------------------------------------------------------------------ */
/* Relay files and record merging                                     */
/* ------------------------------------------------------------------ */

static int cmp_trace(const void *a, const void *b)
{
	return ((const struct trace *)a)->cpu - ((const struct trace *)b)->cpu;
}

static bool have_trace(int cpu)
{
	int i;

	for (i = 0; i < ntraces; i++)
		if (traces[i].cpu == cpu)
			return true;
	return false;
}

/*
 * Open every traceN in dir not open yet (relay adds one when a CPU comes
 * online).  Returns the number opened, or -1 on error.
 */
static int open_traces(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t plen = strlen(STPX_TRACE_PREFIX);
	int opened = 0;

	if (!d) {
		fprintf(stderr, "ERROR: Couldn't open %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char path[512 + 8], *end;
		struct trace *t;
		unsigned long cpu;

		if (strncmp(de->d_name, STPX_TRACE_PREFIX, plen) != 0 ||
		    !de->d_name[plen])
			continue;
		cpu = strtoul(de->d_name + plen, &end, 10);
		if (*end || cpu > INT_MAX || have_trace((int)cpu))
			continue;
		t = realloc(traces, (ntraces + 1) * sizeof(*traces));
		if (!t) {
			perror("realloc");
			closedir(d);
			return -1;
		}
		traces = t;
		t = &traces[ntraces];
		memset(t, 0, sizeof(*t));
		t->cpu = (int)cpu;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		t->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (t->fd < 0) {
			fprintf(stderr, "ERROR: Couldn't open %s: %s\n", path,
				strerror(errno));
			closedir(d);
			return -1;
		}
		ntraces++;
		opened++;
	}
	closedir(d);
	if (!ntraces) {
		fprintf(stderr, "ERROR: No relay files in %s\n", dir);
		return -1;
	}
	if (opened) {
		qsort(traces, ntraces, sizeof(*traces), cmp_trace);
		vlog("opened %d relay file(s)", opened);
	}
	return opened;
}

/* Make room for at least READ_CHUNK more bytes. */
static int trace_room(struct trace *t)
{
	if (t->pos && t->pos == t->len) {
		t->pos = t->len = 0;
	} else if (t->pos && t->cap - t->len < READ_CHUNK) {
		memmove(t->buf, t->buf + t->pos, t->len - t->pos);
		t->len -= t->pos;
		t->pos = 0;
	}
	if (t->cap - t->len < READ_CHUNK) {
		size_t cap = t->cap ? t->cap * 2 : 4 * READ_CHUNK;
		char *b;

		while (cap - t->len < READ_CHUNK)
			cap *= 2;
		b = realloc(t->buf, cap);
		if (!b)
			return -1;
		t->buf = b;
		t->cap = cap;
	}
	return 0;
}

/* Establish t->head if a complete record starts at t->pos. */
static void trace_parse(struct trace *t)
{
	static const unsigned int magic = STPX_REC_MAGIC;
	struct stpx_rec_hdr h;

	while (!t->head && t->len - t->pos >= sizeof(h)) {
		memcpy(&h, t->buf + t->pos, sizeof(h));
		if (h.magic == STPX_REC_MAGIC && h.len <= MAX_REC_LEN) {
			if (t->in_garbage) {
				t->in_garbage = false;
				fprintf(stderr, "ERROR: transport: "
					"resynchronized on trace%d\n", t->cpu);
			}
			if (t->len - t->pos < sizeof(h) + h.len)
				return; /* partial record */
			t->head = true;
			t->head_seq = h.seq;
			t->head_len = h.len;
			return;
		}
		/* Garbage: skip to the next possible magic. */
		if (!t->in_garbage) {
			t->in_garbage = true;
			corrupt_count++;
			fprintf(stderr, "ERROR: transport: corrupt record "
				"header on trace%d, resynchronizing\n", t->cpu);
		}
		t->pos++;
		while (t->len - t->pos >= sizeof(magic) &&
		       memcmp(t->buf + t->pos, &magic, sizeof(magic)) != 0)
			t->pos++;
	}
}

/* Read everything currently available; returns bytes read. */
static size_t read_traces(void)
{
	size_t total = 0;
	int i;

	for (i = 0; i < ntraces; i++) {
		struct trace *t = &traces[i];

		for (;;) {
			ssize_t n;

			if (trace_room(t) < 0) {
				fprintf(stderr, "ERROR: out of memory\n");
				break;
			}
			n = read(t->fd, t->buf + t->len, t->cap - t->len);
			if (n > 0) {
				t->len += n;
				total += n;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN)
				fprintf(stderr, "ERROR: read trace%d: %s\n",
					t->cpu, strerror(errno));
			break;
		}
		trace_parse(t);
	}
	return total;
}

static void write_output(const char *p, size_t n)
{
	if (out_broken || !n)
		return;
	if (fwrite(p, 1, n, out) != n) {
		out_errno = errno;
		out_broken = true;
	}
}

enum emit_mode {
	EMIT_HOLD,      /* stop at any gap */
	EMIT_TIMEOUT,   /* stop at a gap younger than gap_ms */
	EMIT_ALL,       /* final: everything, in order */
};

/*
 * Emit records in sequence order.  Returns true while a gap holds records
 * back.
 */
static bool emit_records(enum emit_mode mode)
{
	bool emitted = false, gap = false;

	for (;;) {
		struct trace *best = NULL;
		int i;

		for (i = 0; i < ntraces; i++) {
			struct trace *t = &traces[i];

			if (!t->head)
				trace_parse(t);
			if (t->head && (!best || t->head_seq < best->head_seq))
				best = t;
		}
		if (!best) {
			gap_since = -1;
			break;
		}
		if (mode != EMIT_ALL && best->head_seq > next_seq) {
			long long now = now_ms();

			if (gap_since < 0)
				gap_since = now;
			if (mode == EMIT_HOLD || now - gap_since < gap_ms) {
				gap = true;
				break;
			}
			vlog("gave up waiting for record %llu after %lld ms "
			     "(next is %llu on trace%d)", next_seq,
			     now - gap_since, best->head_seq, best->cpu);
		}
		best->pos += sizeof(struct stpx_rec_hdr);
		write_output(best->buf + best->pos, best->head_len);
		best->pos += best->head_len;
		best->head = false;
		if (best->head_seq >= next_seq)
			next_seq = best->head_seq + 1;
		else
			vlog("late record %llu on trace%d", best->head_seq,
			     best->cpu);
		gap_since = -1;
		emitted = true;
		n_records++;
	}
	if (emitted && !out_broken && fflush(out) != 0) {
		out_errno = errno;
		out_broken = true;
	}
	return gap;
}

/* Periodic work: read every relay file and print what is in order. */
static void pump(void)
{
	n_pumps++;
	read_traces();
	if (emit_records(EMIT_HOLD)) {
		/*
		 * The missing record may have landed meanwhile, possibly on a
		 * CPU that just came online.
		 */
		open_traces(trace_dir);
		read_traces();
		emit_records(EMIT_TIMEOUT);
	}
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
static long long stop_returned = -1; /* when the "stop" write returned */
static unsigned long d_errors, d_skipped, d_lost;
static unsigned long e_seen;
static const char *target_cmd;
static pid_t target_pid = -1;
static int target_go = -1;       /* write end: the command may exec */
static long target_x;            /* -x PID */
static char start_cmd[32];
static sigset_t orig_mask;

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

/* Shell syntax in CMD: then it runs as /bin/sh -c CMD. */
static bool needs_shell(const char *cmd)
{
	return strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}\n") != NULL;
}

/*
 * Fork the -c command, stopped before exec until release_target().
 * Returns 0, or -1 with the error printed.
 */
static int fork_target(void)
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
static void release_target(void)
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
static void run_system(const char *cmd)
{
	pid_t pid;

	pump();
	if (!out_broken && fflush(out) != 0) {
		out_errno = errno;
		out_broken = true;
	}
	fflush(stderr);
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
		if (out != stdout)
			dup2(fileno(out), STDOUT_FILENO);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &orig_mask, NULL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	vlog("system(): pid %d runs '%s'", (int)pid, cmd);
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

static void event_loop(void)
{
	long long next_tick = now_ms() + TICK_MS;
	long long next_scan = now_ms() + RESCAN_MS;
	struct pollfd *pfd = NULL;
	int i, npfd = 0;

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

		if (npfd != 3 + ntraces) {
			struct pollfd *p = realloc(pfd, (3 + ntraces) *
						   sizeof(*pfd));

			if (!p) {
				perror("realloc");
				break;
			}
			pfd = p;
			npfd = 3 + ntraces;
		}
		pfd[n++] = (struct pollfd){ .fd = ctl_rfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = cmd_pipe[0],
					    .events = POLLIN };
		for (i = 0; i < ntraces; i++)
			pfd[n++] = (struct pollfd){ .fd = traces[i].fd,
						    .events = POLLIN };
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
		now = now_ms();
		if (now >= next_scan) {
			open_traces(trace_dir);
			next_scan = now + RESCAN_MS;
		}
		if (now >= next_tick) {
			pump();
			next_tick = now + TICK_MS;
		}
		if (out_broken && !stop_wanted)
			request_stop("output error");
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
	/* read() on traceN returns 0 once the buffer is empty. */
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
	int opt, status = 0;

	while ((opt = getopt(argc, argv, "+o:c:x:vh")) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
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
	if (optind >= argc || (target_cmd && target_x)) {
		usage(stderr);
		return 1;
	}
	modpath = argv[optind];
	name = module_name(modpath);
	if (!name || !*name || strlen(name) > 200) {
		fprintf(stderr, "ERROR: bad module path '%s'\n", modpath);
		return 1;
	}

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

	if (out_path) {
		out = fopen(out_path, "we");
		if (!out) {
			fprintf(stderr, "ERROR: Couldn't open output file "
				"'%s': %s\n", out_path, strerror(errno));
			return 1;
		}
	} else {
		out = stdout;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 16);

	if (ensure_debugfs() < 0)
		return 1;
	if (target_cmd && fork_target() < 0)
		return 1;
	if (insert_module(modpath, name, argv + optind + 1,
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
	if (ctl_rfd >= 0)
		ctl_wfd = open(path, O_WRONLY | O_CLOEXEC);
	if (ctl_rfd < 0 || ctl_wfd < 0) {
		fprintf(stderr, "ERROR: Couldn't open %s: %s\n", path,
			strerror(errno));
		status = 1;
	} else if (open_traces(trace_dir) < 0) {
		status = 1;
	} else if (send_cmd(start_cmd) < 0) {
		status = 1;
	} else {
		event_loop();
		if (cmd_busy) {
			/* Wait for the module to return from the write. */
			int err;

			if (read(cmd_pipe[0], &err, sizeof(err)) < 0)
				perror("read");
			pthread_join(cmd_thread, NULL);
			cmd_busy = false;
		}
		drain();
	}

	if (ctl_rfd >= 0)
		close(ctl_rfd);
	if (ctl_wfd >= 0)
		close(ctl_wfd);
	for (int i = 0; i < ntraces; i++) {
		close(traces[i].fd);
		free(traces[i].buf);
	}
	if (!out_broken && fflush(out) != 0) {
		out_errno = errno;
		out_broken = true;
	}
	if (out_broken && out_errno != EPIPE)
		fprintf(stderr, "ERROR: Couldn't write output: %s\n",
			strerror(out_errno));

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
	if (out != stdout)
		fclose(out);
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
