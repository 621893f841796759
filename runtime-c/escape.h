/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C-style escaping of strings (text_str/text_strn, string_quoted, the
 * strings of $var$), on its own so that user-space unit tests can build it.
 */
#ifndef _STPX_ESCAPE_H_
#define _STPX_ESCAPE_H_

/* The escape of byte c into e (at least 5 bytes); its length. */
static inline size_t _stpx_escape_byte(char *e, unsigned char c)
{
	static const char esc[] = "\aa\bb\ff\nn\rr\tt\vv\"\"''\\\\";
	const char *hit = c ? strchr(esc, c) : NULL;

	if (hit && (hit - esc) % 2 == 0)
		return snprintf(e, 5, "\\%c", hit[1]);
	if (c < 32 || c > 126)
		return snprintf(e, 5, "\\%03o", c);
	e[0] = c;
	e[1] = '\0';
	return 1;
}

/*
 * n bytes of input (NULs too: buffers) into r, a MAXSTRINGLEN buffer, with
 * characters outside ASCII 32..126 as C escapes (\n, \t, ...) or three
 * octal digits, and ", ' and \ escaped, never cutting an escape. Unquoted:
 * at most len characters (0: as many as fit). Quoted: in double quotes,
 * followed by "..." when input was cut here or, by the caller, before
 * (more); as in stap, len bounds the whole result, quotes and "..."
 * included (text_strn(s, 10, 1) of a long s is "12345"...).
 */
static inline void _stpx_text_mem(char *r, const char *input, size_t n, long len, int quoted,
				  int more)
{
	const unsigned char *in = (const unsigned char *)input, *end = in + n;
	size_t room = MAXSTRINGLEN - 1, out = 0;
	char e[5];

	if (len > 0 && (size_t)len < room)
		room = len;
	if (quoted) {
		/* Whole, if it fits with its quotes; else room for "..." too. */
		size_t whole = 0;

		for (; in < end && whole + 2 <= room; in++)
			whole += _stpx_escape_byte(e, *in);
		in = (const unsigned char *)input;
		if (more || whole + 2 > room)
			room = room > 5 ? room - 5 : 0;
		else
			room -= 2;
		r[out++] = '"';
	}
	for (; in < end; in++) {
		size_t k = _stpx_escape_byte(e, *in);

		if (out - !!quoted + k > room)
			break;
		memcpy(r + out, e, k);
		out += k;
	}
	if (quoted) {
		r[out++] = '"';
		if (in < end || more) {
			memcpy(r + out, "...", 3);
			out += 3;
		}
	}
	r[out] = '\0';
}

/*
 * text_strn(): the NUL-terminated input escaped as by _stpx_text_mem, at
 * most len characters of escapes (0: as many as fit); with quoted, "..."
 * follows when it had to be cut.
 */
static inline void _stpx_text_strn(char *r, const char *input, long len, int quoted)
{
	_stpx_text_mem(r, input, strlen(input), len, quoted, 0);
}

#endif /* _STPX_ESCAPE_H_ */
