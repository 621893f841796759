/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run: the state its parts share (declared in stapx-run.h), and its
 * verbose log and clock.  Apart from stapx-run.c so that the record path
 * (relay.c, output.c) links without the session: testsuite/relay.
 */
#include "stapx-run.h"

int verbose;
const char *out_path;
bool bulk;
unsigned long long rotate_size;
unsigned long rotate_keep;
bool out_broken;
int out_errno;

char trace_dir[256];
struct trace *traces;
int ntraces;

unsigned long long next_seq = 1;
long long gap_since = -1;
long long gap_ms = GAP_MS;
unsigned long corrupt_count;
unsigned long n_polls, n_pumps, n_records;

int ctl_rfd = -1, ctl_wfd = -1, sig_fd = -1;
int cmd_pipe[2] = { -1, -1 };
pthread_t cmd_thread;
bool cmd_busy;
bool cmd_is_stop;
const char *cmd_name;

void vlog(const char *fmt, ...)
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

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
