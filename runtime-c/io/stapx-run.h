/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx-run's parts: stapx-run.c (options, the session and its event
 * loop, commands), children.c (the -c command, system()'s commands),
 * module_load.c (debugfs, insmod and rmmod), relay.c (per-CPU relay files,
 * records merged by sequence number), output.c (the output files: -o, -S
 * rotation, -b per-CPU files) and flight.c (-F's background session, -L).
 * State they share is declared here, defined in state.c unless said.
 */
#ifndef STAPX_RUN_H
#define STAPX_RUN_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <elf.h>
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/utsname.h>
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
#define MAX_REC_LEN (16u << 20) /* larger lengths are garbage */
#define PIPE_ROOM (1 << 20)  /* a pipe on standard output holds this */

struct trace {
	int fd;
	int cpu;
	char *map;            /* the relay buffer, mapped read-only */
	size_t map_size;
	char *buf;            /* the sub-buffer being read, in map */
	unsigned long long seq; /* its number (STPX_TRACE_SPAN) */
	size_t pos, len;      /* unparsed bytes are buf[pos..len) */
	size_t done;          /* the module knows we are done to here */
	bool complete;        /* the writer has moved past buf */
	bool head;            /* a complete record starts at pos */
	unsigned long long head_seq;
	size_t head_len;      /* payload length of that record */
	bool head_switch;     /* it is a switch_file() record */
	bool in_garbage;      /* resyncing after a bad header */
};

/* Defined in state.c. */
extern int verbose;
extern const char *out_path;   /* -o FILE, or NULL */
extern bool bulk;              /* -b: a file per CPU */
extern unsigned long long rotate_size; /* -S SIZE in bytes; 0: none */
extern unsigned long rotate_keep;      /* -S SIZE,N: N; 0: all */
extern bool out_broken;
extern int out_errno;

extern char trace_dir[256];
extern struct trace *traces;
extern int ntraces;

extern unsigned long long next_seq;
extern long long gap_since;
extern long long gap_ms;
extern unsigned long corrupt_count;
extern unsigned long n_polls, n_pumps, n_records;

extern int ctl_rfd, ctl_wfd, sig_fd;
extern int cmd_pipe[2];
extern pthread_t cmd_thread;
extern bool cmd_busy;
extern bool cmd_is_stop;
extern const char *cmd_name;

void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long long now_ms(void);

enum emit_mode {
	EMIT_HOLD,      /* stop at any gap */
	EMIT_TIMEOUT,   /* stop at a gap younger than gap_ms */
	EMIT_ALL,       /* final: everything, in order */
};

/* module_load.c */
int ensure_debugfs(void);
int check_module(const char *path);
char *module_name(const char *path);
int insert_module(const char *path, const char *name, char **params,
			 int nparams);
int remove_module(const char *name);

/* output.c */
int output_open(void);
int output_fileno(void);
void output_record(int cpu, const char *hdr, const char *payload, size_t n);
void output_flush(void);
void output_switch(void);
void output_close(void);

/* children.c (which defines these three) */
extern pid_t target_pid;       /* the -c command, or -1 */
extern int target_go;
extern sigset_t orig_mask;
int fork_target(const char *cmd);
void release_target(void);
void run_system(const char *cmd);

/* flight.c */
int go_background(void);
int list_modules(void);

/* relay.c */
int open_traces(const char *dir);
size_t read_traces(void);
void unmap_traces(void);
bool emit_records(enum emit_mode mode);
bool pump(void);

#endif /* STAPX_RUN_H */
