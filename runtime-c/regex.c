/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `str =~ "re"`: the translator compiles each regular expression into a DFA
 * (translator/regex/) and emits it as tables; this walks one over a string.
 * One table lookup per byte, no allocation, no recursion; the walk stops at
 * the string's NUL or after MAXSTRINGLEN - 1 bytes, the longest string a
 * script can hold.
 *
 * Scripts that read sub-matches (matched(), ngroups(): STPX_RE_SUBMATCH)
 * run each successful match again through a Pike VM over the pattern's
 * sub-match program (translator/regex/regex_submatch.cpp, whose C++ twin
 * the unit tests compare with this one): at most MAXSTRINGLEN steps, each
 * visiting every instruction at most once, on the context's scratch space,
 * without recursion.
 */
#ifndef _STPX_REGEX_C_
#define _STPX_REGEX_C_

#include "regex.h"

/* Per-state flags (translator/regex/regex.h, kAccept* and kDead). */
#define STPX_RE_ACCEPT		1	/* a match ends here */
#define STPX_RE_ACCEPT_END	2	/* a match ends here if the string does */
#define STPX_RE_DEAD		4	/* no match can follow */

struct _stpx_dfa {
	const u8 *classes;	/* [256]: byte -> class */
	const u16 *trans;	/* [state * nclasses + class] -> state */
	const u8 *flags;	/* per state: STPX_RE_* */
	unsigned int nclasses;
};

/* 1 if the regular expression matches anywhere in s, else 0. State 0 is
 * the start; the DFA restarts the pattern after every byte itself. */
static notrace int64_t _stpx_regex_match(const struct _stpx_dfa *re, const char *s)
{
	unsigned int state = 0;
	size_t i;

	for (i = 0;; i++) {
		u8 f = re->flags[state];

		if (f & STPX_RE_ACCEPT)
			return 1;
		if (f & STPX_RE_DEAD)
			return 0;
		if (i >= MAXSTRINGLEN - 1 || s[i] == '\0')
			return (f & STPX_RE_ACCEPT_END) ? 1 : 0;
		state = re->trans[state * re->nclasses + re->classes[(u8)s[i]]];
	}
}
NOKPROBE_SYMBOL(_stpx_regex_match);

/* Sub-match instructions (translator/regex/regex.h, kOp*). */
#define STPX_RE_OP_BYTE		0	/* byte in sets[arg]: x, next byte */
#define STPX_RE_OP_SPLIT	1	/* x, then (less preferred) y */
#define STPX_RE_OP_JMP		2	/* x */
#define STPX_RE_OP_SAVE		3	/* slot arg = position; x */
#define STPX_RE_OP_BOL		4	/* at the start: x */
#define STPX_RE_OP_EOL		5	/* at the end: x */
#define STPX_RE_OP_MATCH	6

struct _stpx_re_inst {
	u8 op;
	u16 arg, x, y;
};

struct _stpx_re_prog {
	const struct _stpx_re_inst *insts;
	const u8 (*sets)[32];		/* bitmaps of bytes */
	unsigned int ninsts;
	unsigned int nslots;		/* 2 x (groups + 1) */
};

#ifdef STPX_RE_SUBMATCH
/*
 * Adds the thread at pc0 with slots cur (as they were on return) and every
 * thread its Split, Jmp, Save and assertion instructions lead to, in order
 * of preference.
 */
static notrace void _stpx_re_add(const struct _stpx_re_prog *re, struct _stpx_re_scratch *w,
				 struct _stpx_re_list *l, unsigned int pc0, int pos, int len)
{
	struct _stpx_re_step *stack = w->stack;
	unsigned int top = 0;

	stack[top++] = (struct _stpx_re_step){ pc0, -1, 0 };
	while (top) {
		struct _stpx_re_step e = stack[--top];
		const struct _stpx_re_inst *in;
		unsigned int i;

		if (e.slot >= 0) {
			w->cur[e.slot] = e.value;
			continue;
		}
		i = l->at[e.pc];
		if (i < l->n && l->pc[i] == e.pc)
			continue;
		i = l->n++;
		l->at[e.pc] = i;
		l->pc[i] = e.pc;
		in = &re->insts[e.pc];
		switch (in->op) {
		case STPX_RE_OP_JMP:
			stack[top++] = (struct _stpx_re_step){ in->x, -1, 0 };
			break;
		case STPX_RE_OP_SPLIT:
			stack[top++] = (struct _stpx_re_step){ in->y, -1, 0 };
			stack[top++] = (struct _stpx_re_step){ in->x, -1, 0 };
			break;
		case STPX_RE_OP_SAVE:
			stack[top++] = (struct _stpx_re_step){ 0, in->arg, w->cur[in->arg] };
			w->cur[in->arg] = pos;
			stack[top++] = (struct _stpx_re_step){ in->x, -1, 0 };
			break;
		case STPX_RE_OP_BOL:
			if (pos == 0)
				stack[top++] = (struct _stpx_re_step){ in->x, -1, 0 };
			break;
		case STPX_RE_OP_EOL:
			if (pos == len)
				stack[top++] = (struct _stpx_re_step){ in->x, -1, 0 };
			break;
		default:	/* Byte, Match: a thread */
			memcpy(&l->slots[i * re->nslots], w->cur, re->nslots * sizeof(int));
			break;
		}
	}
}
NOKPROBE_SYMBOL(_stpx_re_add);

/*
 * Finds where s matches and where its groups are into *last: the leftmost
 * match, the longest there, and of its ways the one the pattern prefers.
 * Threads started at an earlier byte precede later ones in the lists, so
 * they win when two reach the same instruction. Returns last->result.
 */
static notrace int _stpx_regex_submatch(const struct _stpx_re_prog *re, const char *s,
					struct _stpx_re_scratch *w, struct _stpx_re_last *last)
{
	unsigned int ns = re->nslots, k, i;
	int len = 0, pos, cur = 0, found = 0;

	while (len < MAXSTRINGLEN - 1 && s[len])
		len++;
	w->list[0].n = 0;
	w->list[1].n = 0;
	for (pos = 0;; pos++) {
		struct _stpx_re_list *now = &w->list[cur], *next = &w->list[cur ^ 1];

		if (!found) {	/* a new start, least preferred */
			for (k = 0; k < ns; k++)
				w->cur[k] = -1;
			_stpx_re_add(re, w, now, 0, pos, len);
		}
		if (!now->n)
			break;
		for (i = 0; i < now->n; i++) {
			const struct _stpx_re_inst *in = &re->insts[now->pc[i]];
			const int *slots = &now->slots[i * ns];
			u8 b;

			if (in->op == STPX_RE_OP_MATCH) {
				if (!found || slots[0] < last->slots[0] ||
				    (slots[0] == last->slots[0] && slots[1] > last->slots[1])) {
					memcpy(last->slots, slots, ns * sizeof(int));
					found = 1;
				}
				continue;
			}
			if (in->op != STPX_RE_OP_BYTE || pos >= len)
				continue;
			b = (u8)s[pos];
			if (re->sets[in->arg][b / 8] & (1u << (b % 8))) {
				memcpy(w->cur, slots, ns * sizeof(int));
				_stpx_re_add(re, w, next, in->x, pos + 1, len);
			}
		}
		now->n = 0;
		cur ^= 1;
		if (pos == len)
			break;
	}
	last->result = found;
	last->nslots = ns;
	if (found) {
		int start = last->slots[0], n = last->slots[1] - start;

		memcpy(last->str, s + start, n);
		last->str[n] = '\0';
		for (k = 0; k < ns; k++)
			if (last->slots[k] >= 0)
				last->slots[k] -= start;
	}
	return found;
}
NOKPROBE_SYMBOL(_stpx_regex_submatch);

/* =~ in a script that reads sub-matches: the DFA decides, the Pike VM
 * finds the groups of a match. */
static __always_inline int64_t _stpx_regex_match_sub(const struct _stpx_dfa *dfa,
						      const struct _stpx_re_prog *re, const char *s,
						      struct _stpx_re_scratch *w, struct _stpx_re_last *last)
{
	if (!_stpx_regex_match(dfa, s)) {
		last->result = 0;
		return 0;
	}
	return _stpx_regex_submatch(re, s, w, last);
}
#endif

#endif /* _STPX_REGEX_C_ */
