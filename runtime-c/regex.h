/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types of the regular-expression matcher (regex.c) that the probe context
 * holds: for scripts that read sub-matches (matched(), ngroups()), the
 * last match of =~ and the Pike VM's scratch space, sized by the generated
 * STPX_RE_MAX_INSTS (the largest sub-match program), STPX_RE_MAX_SLOTS (its
 * most group slots) and STPX_RE_MAX_CELLS (instructions x slots).
 */
#ifndef _STPX_REGEX_H_
#define _STPX_REGEX_H_

#ifdef STPX_RE_SUBMATCH
/* A thread list: a sparse set of instructions, each with its slots. */
struct _stpx_re_list {
	unsigned int n;
	u16 pc[STPX_RE_MAX_INSTS];	/* the threads, most preferred first */
	u16 at[STPX_RE_MAX_INSTS];	/* instruction -> its index in pc[] */
	int slots[STPX_RE_MAX_CELLS];	/* [index * nslots + slot] */
};

/* A step of the closure walk: visit pc, or (slot >= 0) restore a slot. */
struct _stpx_re_step {
	int pc, slot, value;
};

struct _stpx_re_scratch {
	struct _stpx_re_list list[2];
	/* Each instruction is expanded once per closure, pushing at most two
	 * steps: the walk never needs more. */
	struct _stpx_re_step stack[2 * STPX_RE_MAX_INSTS + 1];
	int cur[STPX_RE_MAX_SLOTS];
};

/* The last =~ of the running handler, for matched() and ngroups(). */
struct _stpx_re_last {
	int result;			/* it matched */
	int nslots;			/* 2 x (groups + 1) */
	int slots[STPX_RE_MAX_SLOTS];	/* offsets into str, -1: no part */
	char str[MAXSTRINGLEN];		/* the text group 0 matched */
};
#endif

#endif /* _STPX_REGEX_H_ */
