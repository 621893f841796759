/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `str =~ "re"`: the translator compiles each regular expression into a DFA
 * (translator/regex/) and emits it as tables; this walks one over a string.
 * One table lookup per byte, no allocation, no recursion; the walk stops at
 * the string's NUL or after MAXSTRINGLEN - 1 bytes, the longest string a
 * script can hold.
 */
#ifndef _STPX_REGEX_C_
#define _STPX_REGEX_C_

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

#endif /* _STPX_REGEX_C_ */
