/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU probe contexts. A handler runs on the context of its CPU; the
 * context holds the script's locals and temporaries (never the kernel
 * stack), the print buffer and the error state. A context found busy
 * (an interrupt or NMI probe hit while a handler runs on this CPU) makes
 * the new hit skip, counted in _stpx_skipped.
 *
 * Requires: union _stpx_frame (generated: every probe's and function's
 * locals) declared before this header.
 */
#ifndef _STPX_CONTEXT_H_
#define _STPX_CONTEXT_H_

#include "regex.h"

struct _stpx_probe;

/* Room to merge the largest histogram of the script (generated). */
#ifndef STPX_HIST_SCRATCH_BUCKETS
#define STPX_HIST_SCRATCH_BUCKETS 0
#endif
/* int64_t fields of struct _stpx_stat before its buckets (stat.c checks). */
#define STPX_STAT_WORDS 6

struct _stpx_context {
	int busy;			/* a handler runs on it (session.h) */
	int nesting;			/* index of the running frame */
	long actioncount;
	long maxaction;
	const char *last_error;		/* set on a script error */
	const char *last_loc;		/* "operator '/' at file:line:col" */
	const struct _stpx_probe *probe;
	struct pt_regs *regs;		/* may be NULL (timers, begin, end) */
	int64_t *entry_saved;		/* .return probes: values saved at entry */
	int at_entry;			/* a .return probe's entry half (@entry) runs */
	void *family_data;		/* the family's own, for this hit (procfs: its text) */
	size_t print_len;
	char print_buf[STPX_PRINT_BUF_SIZE];
	char error_buf[MAXSTRINGLEN];	/* room for formatted error texts */
	char tokenize_buf[MAXSTRINGLEN];	/* tokenize(): the string, */
	int tokenize_pos;		/* and where its next token starts */
	unsigned long stack_pcs[MAXBACKTRACE];	/* a backtrace (stack.c) */
	char sym_buf[KSYM_SYMBOL_LEN];	/* a symbol, as sprint_symbol() writes it */
	int64_t hist_scratch[STPX_STAT_WORDS + STPX_HIST_SCRATCH_BUCKETS];
#ifdef STPX_RE_SUBMATCH
	struct _stpx_re_last re_last;	/* matched(), ngroups(): cleared per hit */
	struct _stpx_re_scratch re_scratch;
#endif
	union _stpx_frame frames[MAXNESTING + 1];
};

static DEFINE_PER_CPU(struct _stpx_context *, _stpx_ctx);

static int _stpx_contexts_alloc(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct _stpx_context *c = vzalloc_node(sizeof(*c), cpu_to_node(cpu));

		if (!c)
			return -ENOMEM;
		per_cpu(_stpx_ctx, cpu) = c;
	}
	return 0;
}

static void _stpx_contexts_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(per_cpu(_stpx_ctx, cpu));
		per_cpu(_stpx_ctx, cpu) = NULL;
	}
}

/*
 * Script errors: record and jump to the nearest "err" label: the end of
 * the handler or function, or, inside try { }, that block's own (a GCC
 * local label), after which the catch block runs.
 */
#define STPX_ERROR(msg, loc)                                                   \
	do {                                                                   \
		c->last_error = (msg);                                         \
		c->last_loc = (loc);                                           \
		goto err;                                                      \
	} while (0)

/*
 * Charged once per statement and per loop iteration, in bodies that
 * declare stpx_count_actions 1; a probe body that cannot reach MAXACTION
 * (no loops, no calls of script functions, few statements) declares 0 and
 * counts nothing.
 */
#define STPX_ACTION(loc)                                                       \
	do {                                                                   \
		if (stpx_count_actions &&                                      \
		    unlikely(++c->actioncount > c->maxaction))                 \
			STPX_ERROR("MAXACTION exceeded", loc);                 \
	} while (0)

#endif /* _STPX_CONTEXT_H_ */
