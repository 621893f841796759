/* SPDX-License-Identifier: GPL-2.0 */
/*
 * String and arithmetic helpers used by generated expressions. Strings are
 * NUL-terminated and bounded by MAXSTRINGLEN (longer ones are truncated,
 * as in stap).
 */
#ifndef _STPX_STRING_H_
#define _STPX_STRING_H_

/*
 * dst = src, dst a MAXSTRINGLEN buffer. Through pointers FORTIFY_SOURCE
 * cannot size: its strscpy would first run strnlen over src, byte by
 * byte, to check a copy that is bounded by MAXSTRINGLEN anyway.
 */
static inline const char *_stpx_strcpy(char *dst, const char *src)
{
	if (dst != src) {
		char *d = dst;
		const char *s = src;

		OPTIMIZER_HIDE_VAR(d);
		OPTIMIZER_HIDE_VAR(s);
		strscpy(d, s, MAXSTRINGLEN);
	}
	return dst;
}

/*
 * execname(): a task's comm. The kernel keeps it NUL-terminated within
 * TASK_COMM_LEN (a racing rename may change it, never unterminate it), so
 * copying those bytes whole and terminating again is enough.
 */
static __always_inline void _stpx_copy_comm(char *dst, const struct task_struct *t)
{
	if (MAXSTRINGLEN >= sizeof(t->comm)) {
		memcpy(dst, t->comm, sizeof(t->comm));
		dst[sizeof(t->comm) - 1] = '\0';
	} else {
		strscpy(dst, t->comm, MAXSTRINGLEN);
	}
}

/* dst = a . b; dst may be neither a nor b. */
static inline const char *_stpx_concat(char *dst, const char *a, const char *b)
{
	size_t n = strscpy(dst, a, MAXSTRINGLEN) < 0 ? MAXSTRINGLEN - 1 : strlen(dst);

	if (n < MAXSTRINGLEN - 1)
		strscpy(dst + n, b, MAXSTRINGLEN - n);
	return dst;
}

/* dst .= s, and dst .= the decimal of v; truncated at MAXSTRINGLEN. */
static inline void _stpx_strcat(char *dst, const char *s)
{
	size_t n = strnlen(dst, MAXSTRINGLEN - 1);

	if (n < MAXSTRINGLEN - 1)
		strscpy(dst + n, s, MAXSTRINGLEN - n);
}

static inline void _stpx_strcat_l(char *dst, int64_t v)
{
	size_t n = strnlen(dst, MAXSTRINGLEN - 1);

	snprintf(dst + n, MAXSTRINGLEN - n, "%lld", (long long)v);
}

/* Division and modulo of 64-bit values; the divisor is known non-zero. */
static inline int64_t _stpx_div(int64_t l, int64_t r)
{
	if (r == -1)
		return (int64_t)(0 - (uint64_t)l);	/* INT64_MIN / -1 wraps */
	return div64_s64(l, r);
}

static inline int64_t _stpx_mod(int64_t l, int64_t r)
{
	if (r == -1)
		return 0;
	return l - div64_s64(l, r) * r;
}

#include "escape.h"

#endif /* _STPX_STRING_H_ */
