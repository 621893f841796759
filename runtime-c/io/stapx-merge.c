/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-merge: the per-CPU files of a bulk-mode run (stapx -b, stapx-run
 * -b) merged back into the script's output, in the order it was printed.
 *
 *   stapx-merge [-v] [-o FILE] FILE...
 *
 * Each file holds whole records (../transport/protocol.h: a struct
 * stpx_rec_hdr, then hdr.len bytes of output) in the order one CPU
 * produced them, so each file's sequence numbers ascend; the merge takes
 * the lowest next record across all files until every file is read.
 * Rotated files (-S: FILE_cpuN.0, FILE_cpuN.1, ...) can be given in any
 * order: each holds an ascending run of its own.  -v puts
 * "[CPU,SEQ,LEN]" before each record, as stap-merge's -v does.
 *
 * A file that ends inside a record, or holds something that is not a
 * record, is reported (file and offset) and the merge stops there for that
 * file; the exit status is then 1.
 *
 * Build: gcc -static -O2 -Wall -Wextra -o stapx-merge stapx-merge.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../transport/protocol.h"

#define MAX_REC_LEN (16u << 20)

struct input {
	const char *path;
	FILE *f;
	int cpu;                /* from the name's "_cpuN", or -1 */
	long long offset;       /* of the record in hdr */
	struct stpx_rec_hdr hdr;
	bool have;              /* hdr holds the next record */
};

static int status;

/* N of a "..._cpuN" or "..._cpuN.K" file name, or -1. */
static int cpu_of(const char *path)
{
	const char *p = strstr(path, "_cpu");
	int cpu;

	while (p && strstr(p + 1, "_cpu"))
		p = strstr(p + 1, "_cpu");
	if (!p || sscanf(p + 4, "%d", &cpu) != 1)
		return -1;
	return cpu;
}

/* Read in's next header; false at its end or on a bad record. */
static bool next_header(struct input *in)
{
	size_t n;

	in->have = false;
	in->offset = ftello(in->f);
	n = fread(&in->hdr, 1, sizeof(in->hdr), in->f);
	if (n == 0 && feof(in->f))
		return false;
	if (n != sizeof(in->hdr)) {
		fprintf(stderr, "stapx-merge: %s: ends inside a record header "
			"at offset %lld\n", in->path, in->offset);
		status = 1;
		return false;
	}
	if (in->hdr.magic != STPX_REC_MAGIC || in->hdr.len > MAX_REC_LEN) {
		fprintf(stderr, "stapx-merge: %s: not a stapx bulk record at "
			"offset %lld\n", in->path, in->offset);
		status = 1;
		return false;
	}
	in->have = true;
	return true;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: stapx-merge [-v] [-o FILE] FILE...\n"
		"  -o FILE  write the merged output to FILE instead of "
		"stdout\n"
		"  -v       put [CPU,SEQ,LEN] before each record\n"
		"  -h       show this help\n");
}

int main(int argc, char **argv)
{
	struct input *ins;
	const char *out_path = NULL;
	bool labels = false;
	char *buf = NULL;
	size_t cap = 0;
	FILE *out = stdout;
	int opt, i, n;

	while ((opt = getopt(argc, argv, "vo:h")) != -1) {
		switch (opt) {
		case 'v':
			labels = true;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	n = argc - optind;
	if (n < 1) {
		usage(stderr);
		return 1;
	}
	ins = calloc(n, sizeof(*ins));
	if (!ins) {
		perror("stapx-merge");
		return 1;
	}
	for (i = 0; i < n; i++) {
		ins[i].path = argv[optind + i];
		ins[i].cpu = cpu_of(ins[i].path);
		ins[i].f = fopen(ins[i].path, "re");
		if (!ins[i].f) {
			fprintf(stderr, "stapx-merge: Couldn't open '%s': "
				"%s\n", ins[i].path, strerror(errno));
			return 1;
		}
		next_header(&ins[i]);
	}
	if (out_path) {
		out = fopen(out_path, "we");
		if (!out) {
			fprintf(stderr, "stapx-merge: Couldn't open output "
				"file '%s': %s\n", out_path, strerror(errno));
			return 1;
		}
	}

	for (;;) {
		struct input *best = NULL;

		for (i = 0; i < n; i++)
			if (ins[i].have &&
			    (!best || ins[i].hdr.seq < best->hdr.seq))
				best = &ins[i];
		if (!best)
			break;
		if (best->hdr.len > cap) {
			char *b = realloc(buf, best->hdr.len);

			if (!b) {
				perror("stapx-merge");
				return 1;
			}
			buf = b;
			cap = best->hdr.len;
		}
		if (fread(buf, 1, best->hdr.len, best->f) != best->hdr.len) {
			fprintf(stderr, "stapx-merge: %s: ends inside the "
				"record at offset %lld\n", best->path,
				best->offset);
			status = 1;
			best->have = false;
			continue;
		}
		if (labels)
			fprintf(out, "[%d,%llu,%u]", best->cpu,
				best->hdr.seq, best->hdr.len);
		fwrite(buf, 1, best->hdr.len, out);
		next_header(best);
	}
	if (fflush(out) != 0 || ferror(out)) {
		fprintf(stderr, "stapx-merge: Couldn't write output: %s\n",
			strerror(errno));
		status = 1;
	}
	if (out != stdout)
		fclose(out);
	for (i = 0; i < n; i++)
		fclose(ins[i].f);
	free(ins);
	free(buf);
	return status;
}
