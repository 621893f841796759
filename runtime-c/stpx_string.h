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

/*
 * text_strn(): input with characters outside ASCII 32..126 as C escapes
 * (\n, \t, ...) or three octal digits, and ", ' and \ escaped; at most
 * len characters of escapes (0: as many as fit), never cutting one. With
 * quoted: in double quotes, followed by "..." when input was cut. r is a
 * MAXSTRINGLEN buffer.
 */
static inline void _stpx_text_strn(char *r, const char *input, long len, int quoted)
{
	static const char esc[] = "\aa\bb\ff\nn\rr\tt\vv\"\"''\\\\";
	const unsigned char *in = (const unsigned char *)input;
	size_t room = MAXSTRINGLEN - 1, out = 0;

	if (quoted)
		room = room > 5 ? room - 5 : 0;	/* the quotes and "..." */
	if (len > 0 && len < room)
		room = len;
	if (quoted)
		r[out++] = '"';
	for (; *in; in++) {
		char e[5];
		const char *hit = strchr(esc, *in);
		size_t n;

		if (hit && (hit - esc) % 2 == 0)
			n = snprintf(e, sizeof(e), "\\%c", hit[1]);
		else if (*in < 32 || *in > 126)
			n = snprintf(e, sizeof(e), "\\%03o", *in);
		else
			n = snprintf(e, sizeof(e), "%c", *in);
		if (out - !!quoted + n > room)
			break;
		memcpy(r + out, e, n);
		out += n;
	}
	if (quoted) {
		r[out++] = '"';
		if (*in) {
			memcpy(r + out, "...", 3);
			out += 3;
		}
	}
	r[out] = '\0';
}

#endif /* _STPX_STRING_H_ */
