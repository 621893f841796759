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
	static const unsigned int switch_magic = STPX_REC_SWITCH_MAGIC;
	struct stpx_rec_hdr h;

	while (!t->head && t->len - t->pos >= sizeof(h)) {
		memcpy(&h, t->buf + t->pos, sizeof(h));
		if ((h.magic == STPX_REC_MAGIC && h.len <= MAX_REC_LEN) ||
		    (h.magic == STPX_REC_SWITCH_MAGIC && h.len == 0)) {
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
			t->head_switch = h.magic == STPX_REC_SWITCH_MAGIC;
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
		       memcmp(t->buf + t->pos, &magic, sizeof(magic)) != 0 &&
		       memcmp(t->buf + t->pos, &switch_magic,
			      sizeof(switch_magic)) != 0)
			t->pos++;
	}
}

/* Read everything currently available; returns bytes read. */
size_t read_traces(void)
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
		if (best->head_switch)	/* switch_file(), in its place */
			output_switch();
		else
			output_record(best->cpu, best->buf + best->pos,
				      best->buf + best->pos +
				      sizeof(struct stpx_rec_hdr),
				      best->head_len);
		best->pos += sizeof(struct stpx_rec_hdr) + best->head_len;
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
	if (emitted)
		output_flush();
	return gap;
}

/* Periodic work: read every relay file and print what is in order. */
void pump(void)
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
