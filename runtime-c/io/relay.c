/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: the module's per-CPU relay files and their records merged by
 * sequence number (stapx-run.c's header comment says how), for output.c.
 */
#include "stapx-run.h"

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
 * Where t's unread records are now (STPX_TRACE_SPAN): t->buf moves on when
 * the module shows the next sub-buffer.  Returns the bytes that became
 * readable, or -1.
 */
static long trace_span(struct trace *t)
{
	struct stpx_trace_span span;
	size_t before;

	if (ioctl(t->fd, STPX_TRACE_SPAN, &span) < 0)
		return -1;
	if (span.buf_size != t->map_size || !span.subbuf_size ||
	    span.subbuf % span.subbuf_size || span.subbuf >= t->map_size ||
	    span.subbuf_size > t->map_size - span.subbuf ||
	    span.end > span.subbuf_size || span.start > span.end) {
		errno = ERANGE;
		return -1;
	}
	if (t->buf && span.seq == t->seq &&
	    (span.end < t->len || span.start > t->pos)) {
		/* Read by someone else (read() on traceN): from there on. */
		fprintf(stderr, "ERROR: transport: trace%d was read by "
			"another reader, resynchronizing\n", t->cpu);
		corrupt_count++;
		t->buf = NULL;
	}
	if (!t->buf || span.seq != t->seq) {
		t->seq = span.seq;
		t->buf = t->map + span.subbuf;
		t->pos = t->len = t->done = span.start;
		t->head = false;
	}
	before = t->len;
	t->len = span.end;
	t->complete = span.complete;
	return (long)(t->len - before);
}

/*
 * Tell the module t is done with its sub-buffer up to pos.  The output
 * queued from there (output.c) is written first: the module may overwrite
 * the sub-buffer once it is back.
 */
static int trace_done(struct trace *t, size_t pos)
{
	struct stpx_trace_done done = { .seq = t->seq, .pos = pos };

	output_flush();
	if (ioctl(t->fd, STPX_TRACE_DONE, &done) < 0 && errno != ESTALE)
		return -1;
	t->done = pos;
	return 0;
}

/* Map t's relay buffer; 0 or -1 (errno set). */
static int trace_map(struct trace *t)
{
	struct stpx_trace_span span;
	void *m;

	if (ioctl(t->fd, STPX_TRACE_SPAN, &span) < 0)
		return -1;
	m = mmap(NULL, span.buf_size, PROT_READ, MAP_SHARED, t->fd, 0);
	if (m == MAP_FAILED)
		return -1;
	t->map = m;
	t->map_size = span.buf_size;
	t->buf = NULL;
	if (trace_span(t) < 0) {
		int err = errno;

		munmap(m, span.buf_size);
		t->map = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * Open every traceN in dir not open yet (relay adds one when a CPU comes
 * online).  Returns the number opened, or -1 on error.
 */
int open_traces(const char *dir)
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
		if (trace_map(t) < 0) {
			fprintf(stderr, "ERROR: Couldn't map %s: %s\n", path,
				strerror(errno));
			close(t->fd);
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

void unmap_traces(void)
{
	for (int i = 0; i < ntraces; i++) {
		if (traces[i].map)
			munmap(traces[i].map, traces[i].map_size);
		close(traces[i].fd);
	}
}

/* Bytes at t->pos that are no record: say so once per run of them. */
static void trace_garbage(struct trace *t)
{
	if (!t->in_garbage) {
		t->in_garbage = true;
		corrupt_count++;
		fprintf(stderr, "ERROR: transport: corrupt record "
			"header on trace%d, resynchronizing\n", t->cpu);
	}
}

/*
 * Establish t->head if a complete record starts at t->pos.  Records never
 * straddle sub-buffers, so the end of a complete one inside a record is
 * garbage too (a sub-buffer torn by the flight recorder's overwriting).
 */
static inline bool rec_hdr_ok(const struct stpx_rec_hdr *h)
{
	return (h->magic == STPX_REC_MAGIC && h->len <= MAX_REC_LEN) ||
	       (h->magic == STPX_REC_SWITCH_MAGIC && h->len == 0);
}

/* The record h, whole at t->pos, is t's next. */
static inline void trace_take(struct trace *t, const struct stpx_rec_hdr *h)
{
	t->head = true;
	t->head_seq = h->seq;
	t->head_len = h->len;
	t->head_switch = h->magic == STPX_REC_SWITCH_MAGIC;
}

static void trace_parse_any(struct trace *t)
{
	static const unsigned int magic = STPX_REC_MAGIC;
	static const unsigned int switch_magic = STPX_REC_SWITCH_MAGIC;
	struct stpx_rec_hdr h;

	while (!t->head && t->len - t->pos >= sizeof(h)) {
		memcpy(&h, t->buf + t->pos, sizeof(h));
		if (rec_hdr_ok(&h)) {
			if (t->len - t->pos >= sizeof(h) + h.len) {
				if (t->in_garbage) {
					t->in_garbage = false;
					fprintf(stderr, "ERROR: transport: "
						"resynchronized on trace%d\n",
						t->cpu);
				}
				trace_take(t, &h);
				return;
			}
			if (!t->complete)
				return; /* the rest is not written yet */
		}
		/* Garbage: skip to the next possible magic. */
		trace_garbage(t);
		t->pos++;
		while (t->len - t->pos >= sizeof(magic) &&
		       memcmp(t->buf + t->pos, &magic, sizeof(magic)) != 0 &&
		       memcmp(t->buf + t->pos, &switch_magic,
			      sizeof(switch_magic)) != 0)
			t->pos++;
	}
	if (!t->head && t->complete && t->pos < t->len) {
		trace_garbage(t);
		t->pos = t->len;
	}
}

/* trace_parse_any(), its usual case first: a whole record, read on. */
static inline void trace_parse(struct trace *t)
{
	struct stpx_rec_hdr h;

	if (!t->head && !t->in_garbage && t->len - t->pos >= sizeof(h)) {
		memcpy(&h, t->buf + t->pos, sizeof(h));
		if (rec_hdr_ok(&h) && h.len <= t->len - t->pos - sizeof(h)) {
			trace_take(t, &h);
			return;
		}
	}
	trace_parse_any(t);
}

/* A SPAN or DONE on t failed (errno). */
static void trace_failed(const struct trace *t)
{
	fprintf(stderr, "ERROR: relay trace%d: %s\n", t->cpu, strerror(errno));
}

/*
 * Past a sub-buffer t has printed all of (STPX_TRACE_DONE), to the next
 * one, while there is one.
 */
static void trace_next(struct trace *t)
{
	while (!t->head && t->complete && t->pos >= t->len) {
		if (trace_done(t, t->len) < 0 || trace_span(t) < 0) {
			trace_failed(t);
			t->complete = false;
			return;
		}
		trace_parse(t);
	}
}

/* See what is newly readable in every relay file; returns its bytes. */
size_t read_traces(void)
{
	size_t total = 0;
	int i;

	for (i = 0; i < ntraces; i++) {
		struct trace *t = &traces[i];
		long n = trace_span(t);

		if (n < 0)
			trace_failed(t);
		else
			total += n;
		trace_parse(t);
		trace_next(t);
	}
	return total;
}

/*
 * Emit records in sequence order.  Returns true while a gap holds records
 * back.
 */
bool emit_records(enum emit_mode mode)
{
	bool emitted = false, gap = false;

	for (;;) {
		struct trace *best = NULL;
		int i;

		for (i = 0; i < ntraces; i++) {
			struct trace *t = &traces[i];

			if (!t->head) {
				trace_parse(t);
				trace_next(t);
			}
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
		if (best->head_seq < next_seq)
			vlog("late record %llu on trace%d", best->head_seq,
			     best->cpu);
		gap_since = -1;
		emitted = true;
		/*
		 * best's records while each is the next in order: sequence
		 * numbers are unique, so no other file can hold an earlier one.
		 */
		do {
			if (best->head_switch)	/* switch_file(), in its place */
				output_switch();
			else
				output_record(best->cpu, best->buf + best->pos,
					      best->buf + best->pos +
					      sizeof(struct stpx_rec_hdr),
					      best->head_len);
			best->pos += sizeof(struct stpx_rec_hdr) +
				     best->head_len;
			best->head = false;
			if (best->head_seq >= next_seq)
				next_seq = best->head_seq + 1;
			n_records++;
			trace_parse(best);
		} while (best->head && best->head_seq == next_seq);
	}
	if (emitted) {
		output_flush();
		/*
		 * Written: the module may forget them, so that a stapx-run
		 * that attaches later (-A) does not print them again.
		 */
		for (int i = 0; i < ntraces; i++)
			if (traces[i].buf && traces[i].pos > traces[i].done)
				trace_done(&traces[i], traces[i].pos);
	}
	return gap;
}

/*
 * Periodic work: read every relay file and print what is in order.
 * Returns true while a gap holds records back.
 */
bool pump(void)
{
	n_pumps++;
	read_traces();
	if (!emit_records(EMIT_HOLD))
		return false;
	/*
	 * The missing record may have landed meanwhile, possibly on a CPU
	 * that just came online.
	 */
	open_traces(trace_dir);
	read_traces();
	return emit_records(EMIT_TIMEOUT);
}
