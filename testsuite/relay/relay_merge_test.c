// SPDX-License-Identifier: GPL-2.0
/*
 * stapx-run's record path on the host: relay.c and output.c as stapx-run
 * builds them, over relay buffers this test makes, with the module's side
 * of STPX_TRACE_SPAN and STPX_TRACE_DONE answered here (ioctl() below).
 * Each case writes the records of several "CPUs" and checks the output
 * file holds exactly what the module side wrote, in sequence order:
 * short records (copied by the sink) and long ones (written from the
 * relay buffer), runs of one CPU, gaps, garbage between records, more
 * segments than one writev() takes, and -b's per-CPU files.
 */
#include "../../runtime-c/io/stapx-run.h"

#include <stdarg.h>

/* ------------------------------------------------------------------ */
/* The module's side: NSUB sub-buffers a CPU, filled before the run.    */
/* ------------------------------------------------------------------ */

#define MAX_CPUS 4
#define MAX_SUBS 256

struct fake_cpu {
	char *map;
	size_t subbuf_size;
	int nsubs;                 /* sub-buffers written, in order */
	size_t fill[MAX_SUBS];     /* bytes in each */
	int cur;                   /* the oldest not given back */
};

static struct fake_cpu cpus[MAX_CPUS];
static int failures;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			failures++;                                       \
		}                                                         \
	} while (0)

/* The fd of CPU c's relay file is 100 + c. */
int ioctl(int fd, unsigned long req, ...)
{
	struct fake_cpu *f = &cpus[fd - 100];
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == STPX_TRACE_SPAN) {
		struct stpx_trace_span *s = arg;
		bool written = f->cur < f->nsubs;

		*s = (struct stpx_trace_span){
			.buf_size = f->subbuf_size * MAX_SUBS,
			.subbuf_size = f->subbuf_size,
			.seq = (unsigned long long)f->cur,
			.subbuf = (unsigned long long)f->cur * f->subbuf_size,
			.end = written ? f->fill[f->cur] : 0,
			/* The last sub-buffer is still being written. */
			.complete = f->cur < f->nsubs - 1,
		};
		return 0;
	}
	if (req == STPX_TRACE_DONE) {
		struct stpx_trace_done *d = arg;

		if (d->seq != (unsigned long long)f->cur) {
			errno = ESTALE;
			return -1;
		}
		if (f->cur < f->nsubs - 1 && d->pos == f->fill[f->cur])
			f->cur++;
		return 0;
	}
	errno = EINVAL;
	return -1;
}

/* What the output must be: the payloads by sequence number. */
static char *expect[4096];
static size_t expect_len[4096];

static void fake_reset(int ncpus, size_t subbuf_size)
{
	for (int c = 0; c < MAX_CPUS; c++) {
		free(cpus[c].map);
		cpus[c] = (struct fake_cpu){ 0 };
	}
	free(traces);
	traces = calloc(ncpus, sizeof(*traces));
	ntraces = ncpus;
	for (int c = 0; c < ncpus; c++) {
		cpus[c].subbuf_size = subbuf_size;
		cpus[c].map = calloc(MAX_SUBS, subbuf_size);
		cpus[c].nsubs = 1;
		traces[c] = (struct trace){ .fd = 100 + c, .cpu = c,
					    .map = cpus[c].map,
					    .map_size = MAX_SUBS * subbuf_size };
	}
	for (size_t i = 0; i < 4096; i++) {
		free(expect[i]);
		expect[i] = NULL;
	}
	next_seq = 1;
	gap_since = -1;
	corrupt_count = 0;
	n_records = 0;
	out_broken = false;
}

static void put_bytes(int c, const void *p, size_t n)
{
	struct fake_cpu *f = &cpus[c];
	size_t *fill = &f->fill[f->nsubs - 1];

	if (*fill + n > f->subbuf_size) {	/* next sub-buffer */
		if (f->nsubs == MAX_SUBS) {
			fprintf(stderr, "relay_merge_test: more than %d "
				"sub-buffers\n", MAX_SUBS);
			exit(2);
		}
		f->nsubs++;
		fill = &f->fill[f->nsubs - 1];
	}
	memcpy(f->map + (f->nsubs - 1) * f->subbuf_size + *fill, p, n);
	*fill += n;
}

/* Record seq of len bytes on CPU c; expected in the output unless lost. */
static void put_record(int c, unsigned long long seq, size_t len)
{
	struct stpx_rec_hdr h = { STPX_REC_MAGIC, (unsigned int)len, seq };
	char *rec = malloc(sizeof(h) + len);
	size_t i;

	if (seq >= sizeof(expect) / sizeof(expect[0])) {
		fprintf(stderr, "relay_merge_test: seq %llu past expect[]\n", seq);
		exit(2);
	}
	memcpy(rec, &h, sizeof(h));
	for (i = 0; i < len; i++)
		rec[sizeof(h) + i] = (char)('a' + (seq + i) % 26);
	if (len)
		rec[sizeof(h) + len - 1] = '\n';
	put_bytes(c, rec, sizeof(h) + len);
	expect[seq] = malloc(len + 1);
	memcpy(expect[seq], rec + sizeof(h), len);
	expect_len[seq] = len;
	free(rec);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = malloc(size + 1);
	*n = fread(buf, 1, size, f);
	fclose(f);
	return buf;
}

/* The output file against expect[1..last] (a seq never put is skipped). */
static void check_output(const char *what, const char *path,
			 unsigned long long last)
{
	size_t n, pos = 0;
	char *got = slurp(path, &n);

	CHECK(got, "%s: no output file %s", what, path);
	if (!got)
		return;
	for (unsigned long long s = 1; s <= last; s++) {
		if (!expect[s])
			continue;
		if (pos + expect_len[s] > n ||
		    memcmp(got + pos, expect[s], expect_len[s]) != 0) {
			CHECK(0, "%s: record %llu (%zu bytes) not at offset %zu",
			      what, s, expect_len[s], pos);
			free(got);
			return;
		}
		pos += expect_len[s];
	}
	CHECK(pos == n, "%s: %zu bytes more than the records", what, n - pos);
	free(got);
}

/* Read and print until every fake CPU's last sub-buffer is read. */
static void run_all(enum emit_mode mode)
{
	for (int round = 0; round < 1000; round++) {
		bool left = false;

		read_traces();
		emit_records(mode);
		for (int c = 0; c < ntraces; c++)
			if (cpus[c].cur < cpus[c].nsubs - 1 ||
			    traces[c].pos < cpus[c].fill[cpus[c].cur])
				left = true;
		if (!left)
			return;
	}
	CHECK(0, "records left unread after 1000 rounds");
}

static char dir[] = "/tmp/relay_merge_test.XXXXXX";

static void run_merged(const char *what, enum emit_mode mode,
		       unsigned long long last)
{
	char path[sizeof(dir) + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, what);
	out_path = path;
	bulk = false;
	CHECK(output_open() == 0, "%s: output_open", what);
	run_all(mode);
	output_flush();
	output_close();
	CHECK(!out_broken, "%s: output error %s", what, strerror(out_errno));
	check_output(what, path, last);
}

int main(void)
{
	unsigned long long s;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}

	/* Two CPUs, runs of one CPU's records of every length from one
	 * byte to past the copy limit, across many sub-buffers. */
	fake_reset(2, 8192);
	for (s = 1; s <= 600; s++)
		put_record((s / 7) % 2 ? 1 : 0, s,
			   1 + (s * 37) % (s % 5 ? 300 : 3000));
	run_merged("interleaved", EMIT_HOLD, 600);
	CHECK(n_records == 600, "interleaved: %lu records", n_records);
	CHECK(corrupt_count == 0, "interleaved: %lu corrupt", corrupt_count);

	/* Alternating CPUs record by record. */
	fake_reset(3, 4096);
	for (s = 1; s <= 900; s++)
		put_record((int)(s % 3), s, s % 2 ? 12 : 1500);
	run_merged("alternating", EMIT_HOLD, 900);

	/* A number never written: held back while it may come, printed
	 * past at the end. */
	fake_reset(2, 4096);
	for (s = 1; s <= 20; s++)
		if (s != 9)
			put_record(s < 9 ? 0 : 1, s, 40);
	{
		char path[sizeof(dir) + 32];
		size_t n;
		char *got;

		snprintf(path, sizeof(path), "%s/gap", dir);
		out_path = path;
		CHECK(output_open() == 0, "gap: output_open");
		read_traces();
		CHECK(emit_records(EMIT_HOLD), "gap: not held");
		output_flush();
		got = slurp(path, &n);
		CHECK(got && n == 8 * 40, "gap: %zu bytes before the gap", n);
		free(got);
		run_all(EMIT_ALL);
		output_close();
		check_output("gap", path, 20);
	}

	/* Garbage between records: skipped, counted, the rest printed. */
	fake_reset(1, 8192);
	for (s = 1; s <= 50; s++) {
		put_record(0, s, 100);
		if (s == 20)
			put_bytes(0, "junk junk junk junk", 19);
	}
	run_merged("garbage", EMIT_HOLD, 50);
	CHECK(corrupt_count == 1, "garbage: %lu corrupt runs", corrupt_count);

	/* More long records than one writev() takes, in one sub-buffer. */
	fake_reset(1, 2 << 20);
	for (s = 1; s <= 1500; s++)
		put_record(0, s, 1100 + s % 50);
	run_merged("many_segments", EMIT_HOLD, 1500);

	/* -b: each CPU's records, headers included, in a file of its own. */
	fake_reset(2, 4096);
	for (s = 1; s <= 200; s++)
		put_record((s / 3) % 2 ? 1 : 0, s, s % 4 ? 30 : 2000);
	{
		char base[sizeof(dir) + 32];

		snprintf(base, sizeof(base), "%s/bulk", dir);
		out_path = base;
		bulk = true;
		CHECK(output_open() == 0, "bulk: output_open");
		run_all(EMIT_HOLD);
		output_close();
		bulk = false;
		for (int c = 0; c < 2; c++) {
			char path[sizeof(base) + 16];
			size_t n, pos = 0;
			char *got;

			snprintf(path, sizeof(path), "%s_cpu%d", base, c);
			got = slurp(path, &n);
			CHECK(got, "bulk: no %s", path);
			if (!got)
				continue;
			for (s = 1; s <= 200; s++) {
				struct stpx_rec_hdr h;

				if (((s / 3) % 2 ? 1 : 0) != c)
					continue;
				CHECK(pos + sizeof(h) <= n, "bulk cpu%d: ends "
				      "before record %llu", c, s);
				if (pos + sizeof(h) > n)
					break;
				memcpy(&h, got + pos, sizeof(h));
				CHECK(h.seq == s && h.len == expect_len[s] &&
				      !memcmp(got + pos + sizeof(h), expect[s],
					      h.len),
				      "bulk cpu%d: record %llu", c, s);
				pos += sizeof(h) + h.len;
			}
			CHECK(pos == n, "bulk cpu%d: %zu bytes too many", c,
			      n - pos);
			free(got);
		}
	}

	if (failures) {
		fprintf(stderr, "relay_merge_test: %d failures (files in %s)\n",
			failures, dir);
		return 1;
	}
	printf("relay_merge_test: every record where it belongs (the "
	       "garbage case's two transport errors above are expected)\n");
	{
		char cmd[sizeof(dir) + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "relay_merge_test: could not remove %s\n",
				dir);
	}
	return 0;
}
