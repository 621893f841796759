/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: where the script's output goes.
 *
 * One sink by default: standard output, or -o FILE.  FILE may hold
 * strftime(3) conversions ("trace-%H%M%S.txt"), expanded with the local
 * time each time a file is opened.
 *
 * -S SIZE[,N] rotates: the output goes to FILE.0, and a record that would
 * take the file past SIZE bytes starts FILE.1, and so on; with N, opening
 * file K removes file K-N, so at most N remain.  Files change only between
 * records, so a record (one handler's output) is never split; a record
 * larger than SIZE gets a file of its own.
 *
 * switch_file() in the script moves the output on to the next file in
 * the same way: FILE.1, FILE.2, ... after FILE without -S (FILE.K+1 after
 * FILE.K with it, and N still holds); with the output on standard output
 * it changes nothing.
 *
 * -b (bulk): one sink per CPU, FILE_cpuN (stpd_cpuN without -o), opened
 * when the CPU's first record arrives.  Records are written whole, their
 * headers included (protocol.h's struct stpx_rec_hdr), in the order the
 * CPU produced them; stapx-merge orders the files' records by sequence
 * number into one text.  Rotation applies to each CPU's file: FILE_cpuN.K.
 */
#include "stapx-run.h"

/*
 * A sink queues what it writes (struct iovec) and writes it with writev(2)
 * at output_flush(), or when the queue is full.  Short records are copied
 * into the sink's own buffer (each of the kernel's iovec segments costs
 * more than copying a short one); longer ones are not copied: the queue
 * points into the relay buffer, and relay.c flushes before it gives a
 * sub-buffer back to the module.
 */
#define SINK_IOV 1024		/* IOV_MAX on Linux */
#define SINK_BUF (64 << 10)	/* the copies of short records */
#define SINK_COPY_MAX 1024	/* records up to this long are copied */

struct sink {
	FILE *f;
	bool is_stdout;
	int cpu;                    /* -1: the merged output */
	unsigned long long written; /* bytes in the current file */
	unsigned long index;        /* current rotation number */
	char **names;               /* every file opened, by index */
	unsigned long nnames;
	int niov;                   /* queued, not written yet */
	struct iovec iov[SINK_IOV];
	char *buf;                  /* SINK_BUF bytes, or NULL */
	size_t buf_used;
	bool copy_tail;             /* the last segment ends at buf_used */
};

static struct sink merged = { .cpu = -1 };
static struct sink *bulk_sinks;
static int nbulk_sinks;
static unsigned long switches;	/* switch_file() calls so far */

/* FILE with strftime(3) conversions expanded; malloc'd or NULL. */
static char *expand_path(const char *pattern)
{
	char buf[PATH_MAX];
	time_t t = time(NULL);
	struct tm tm;

	if (!strchr(pattern, '%'))
		return strdup(pattern);
	localtime_r(&t, &tm);
	if (strftime(buf, sizeof(buf), pattern, &tm) == 0) {
		fprintf(stderr, "ERROR: output file name '%s' expands to "
			"nothing or is too long\n", pattern);
		return NULL;
	}
	return strdup(buf);
}

/* The name of s's next file (its index s->index). */
static char *sink_name(const struct sink *s)
{
	char *base, *name;
	int n;

	if (bulk)
		base = expand_path(out_path ? out_path : "stpd");
	else
		base = expand_path(out_path);
	if (!base)
		return NULL;
	if (bulk && (rotate_size || s->index))
		n = asprintf(&name, "%s_cpu%d.%lu", base, s->cpu, s->index);
	else if (bulk)
		n = asprintf(&name, "%s_cpu%d", base, s->cpu);
	else if (rotate_size || s->index)
		n = asprintf(&name, "%s.%lu", base, s->index);
	else
		n = asprintf(&name, "%s", base);
	free(base);
	return n < 0 ? NULL : name;
}

static void sink_failed(int err)
{
	if (!out_broken) {
		out_errno = err;
		out_broken = true;
	}
}

/* Open s's next file; the oldest beyond rotate_keep goes.  0 or -1. */
static int sink_open(struct sink *s)
{
	char *name, **names;

	if (!bulk && !out_path) {
		s->f = stdout;
		s->is_stdout = true;
		return 0;
	}
	name = sink_name(s);
	if (!name) {
		sink_failed(ENOMEM);
		return -1;
	}
	s->f = fopen(name, "we");
	if (!s->f) {
		fprintf(stderr, "ERROR: Couldn't open output file '%s': %s\n",
			name, strerror(errno));
		free(name);
		sink_failed(errno);
		return -1;
	}
	vlog("writing output to %s", name);
	names = realloc(s->names, (s->nnames + 1) * sizeof(*names));
	if (!names) {
		free(name);
		return 0;
	}
	s->names = names;
	s->names[s->nnames++] = name;
	if (rotate_keep && s->nnames > rotate_keep) {
		char **old = &s->names[s->nnames - rotate_keep - 1];

		if (*old) {
			vlog("removing %s", *old);
			if (unlink(*old) < 0 && errno != ENOENT)
				fprintf(stderr, "WARNING: Couldn't remove "
					"old output file '%s': %s\n", *old,
					strerror(errno));
			free(*old);
			*old = NULL;
		}
	}
	s->written = 0;
	return 0;
}

/*
 * Write what s has queued.  A pipe may take part of it (a signal); an
 * error stops the output for good (out_broken), as with any sink.
 */
static void sink_drain(struct sink *s)
{
	struct iovec *v = s->iov;
	int left = s->niov;

	s->niov = 0;
	s->buf_used = 0;
	s->copy_tail = false;
	if (out_broken || !s->f)
		return;
	while (left) {
		ssize_t w = writev(fileno(s->f), v, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sink_failed(w < 0 ? errno : EIO);
			return;
		}
		while (left && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++;
			left--;
		}
		if (left) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
}

static int sink_close(struct sink *s)
{
	int rc = 0;

	sink_drain(s);
	if (!s->f)
		return 0;
	if (s->is_stdout)
		rc = fflush(s->f);
	else
		rc = fclose(s->f);
	s->f = NULL;
	if (rc != 0)
		sink_failed(errno);
	return rc;
}

/*
 * -S: the next n bytes go to a new file if they would take the current
 * one past the size (never when it is empty).
 */
static void sink_make_room(struct sink *s, size_t n)
{
	if (rotate_size && s->f && s->written &&
	    s->written + n > rotate_size) {
		sink_close(s);
		s->index++;
	}
}

/* Queue n bytes at p, as they are. */
static void sink_queue(struct sink *s, const char *p, size_t n)
{
	struct iovec *last;

	if (s->niov == SINK_IOV)
		sink_drain(s);
	/* Right after the last segment (-b's records, one after another in
	 * a relay buffer): one segment. */
	last = s->niov && !s->copy_tail ? &s->iov[s->niov - 1] : NULL;
	if (last && (const char *)last->iov_base + last->iov_len == p) {
		last->iov_len += n;
		return;
	}
	s->iov[s->niov++] = (struct iovec){ .iov_base = (void *)p,
					    .iov_len = n };
	s->copy_tail = false;
}

/* Write n bytes at p, which stay valid until output_flush(). */
static void sink_write(struct sink *s, const char *p, size_t n)
{
	if (out_broken || !n)
		return;
	sink_make_room(s, n);
	if (!s->f && sink_open(s) < 0)
		return;
	s->written += n;
	if (n > SINK_COPY_MAX) {
		sink_queue(s, p, n);
		return;
	}
	/* A copy, with room for it and a segment. */
	if (s->buf_used + n > SINK_BUF || s->niov == SINK_IOV)
		sink_drain(s);
	if (!s->buf && !(s->buf = malloc(SINK_BUF))) {
		sink_failed(ENOMEM);
		return;
	}
	memcpy(s->buf + s->buf_used, p, n);
	if (s->copy_tail) {	/* a copy after a copy: one segment */
		s->iov[s->niov - 1].iov_len += n;
	} else {
		s->iov[s->niov++] = (struct iovec){
			.iov_base = s->buf + s->buf_used, .iov_len = n };
		s->copy_tail = true;
	}
	s->buf_used += n;
}

/*
 * Open the merged output at start (so that a bad -o fails before the
 * module loads); in bulk mode each CPU's file opens with its first record.
 */
int output_open(void)
{
	if (bulk)
		return 0;
	if (sink_open(&merged) < 0)
		return -1;
	if (merged.is_stdout) {
		struct stat st;

		/*
		 * Into a pipe: room for 1 MiB in it (64 KiB by default), so
		 * that output waits there, not in the module's buffers, when
		 * the reader falls behind for a moment. Best effort: a pipe
		 * keeps its size when the system's limit is lower, or when it
		 * is larger already.
		 */
		if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) &&
		    fcntl(STDOUT_FILENO, F_GETPIPE_SZ) < PIPE_ROOM)
			(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, PIPE_ROOM);
	}
	return 0;
}

/* The merged output's current file, for system()'s commands; -1: stdout. */
int output_fileno(void)
{
	return merged.f && !merged.is_stdout ? fileno(merged.f) : -1;
}

static struct sink *bulk_sink(int cpu)
{
	struct sink *s;
	int i;

	for (i = 0; i < nbulk_sinks; i++)
		if (bulk_sinks[i].cpu == cpu)
			return &bulk_sinks[i];
	s = realloc(bulk_sinks, (nbulk_sinks + 1) * sizeof(*s));
	if (!s)
		return NULL;
	bulk_sinks = s;
	s = &bulk_sinks[nbulk_sinks++];
	/* (A CPU first heard from after switch_file() starts at the file
	 * number the others have reached, so that .K means the same point
	 * in every CPU's files.) */
	*s = (struct sink){ .cpu = cpu, .index = switches };
	return s;
}

/*
 * One record from CPU cpu: hdr is its header, payload (right after it)
 * what the script printed.  Both stay where they are until the next
 * output_flush().
 */
void output_record(int cpu, const char *hdr, const char *payload, size_t n)
{
	struct sink *s;

	if (!bulk) {
		sink_write(&merged, payload, n);
		return;
	}
	s = bulk_sink(cpu);
	if (!s) {
		sink_failed(ENOMEM);
		return;
	}
	/* A header and its payload, which follows it, always share a file. */
	sink_write(s, hdr, (size_t)(payload - hdr) + n);
}

/*
 * Write what is queued (before system(), before a sub-buffer goes back to
 * the module, and after each pump).
 */
void output_flush(void)
{
	int i;

	if (merged.niov)
		sink_drain(&merged);
	for (i = 0; i < nbulk_sinks; i++)
		if (bulk_sinks[i].niov)
			sink_drain(&bulk_sinks[i]);
}

/* switch_file(): every file sink moves on to its next file. */
void output_switch(void)
{
	int i;

	if (out_broken)
		return;
	if (!bulk && !merged.is_stdout) {
		sink_close(&merged);
		merged.index++;
		sink_open(&merged);
	}
	switches++;
	for (i = 0; i < nbulk_sinks; i++) {
		struct sink *b = &bulk_sinks[i];

		sink_close(b);
		b->index = b->index + 1 > switches ? b->index + 1 : switches;
	}
}

void output_close(void)
{
	int i;
	unsigned long k;

	sink_close(&merged);
	for (i = 0; i < nbulk_sinks; i++)
		sink_close(&bulk_sinks[i]);
	for (k = 0; k < merged.nnames; k++)
		free(merged.names[k]);
	free(merged.names);
	free(merged.buf);
	for (i = 0; i < nbulk_sinks; i++) {
		for (k = 0; k < bulk_sinks[i].nnames; k++)
			free(bulk_sinks[i].names[k]);
		free(bulk_sinks[i].names);
		free(bulk_sinks[i].buf);
	}
	free(bulk_sinks);
	/* As at start (testsuite/relay opens and closes several times). */
	merged = (struct sink){ .cpu = -1 };
	bulk_sinks = NULL;
	nbulk_sinks = 0;
	switches = 0;
}
