/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C-style escaping of strings (text_str/text_strn, string_quoted, the
 * strings of $var$), on its own so that user-space unit tests can build it.
 */
#ifndef _STPX_ESCAPE_H_
#define _STPX_ESCAPE_H_

/*
 * n bytes of input (NULs too: buffers) into r, a MAXSTRINGLEN buffer, with
 * characters outside ASCII 32..126 as C escapes (\n, \t, ...) or three
 * octal digits, and ", ' and \ escaped; at most len characters of escapes
 * (0: as many as fit), never cutting one. With quoted: in double quotes,
 * followed by "..." when input was cut here or, by the caller, before
 * (more).
 */
static inline void _stpx_text_mem(char *r, const char *input, size_t n, long len, int quoted,
				  int more)
{
	static const char esc[] = "\aa\bb\ff\nn\rr\tt\vv\"\"''\\\\";
	const unsigned char *in = (const unsigned char *)input, *end = in + n;
	size_t room = MAXSTRINGLEN - 1, out = 0;

	if (quoted)
		room = room > 5 ? room - 5 : 0;	/* the quotes and "..." */
	if (len > 0 && len < room)
		room = len;
	if (quoted)
		r[out++] = '"';
	for (; in < end; in++) {
		char e[5];
		const char *hit = *in ? strchr(esc, *in) : NULL;
		size_t k;

		if (hit && (hit - esc) % 2 == 0)
			k = snprintf(e, sizeof(e), "\\%c", hit[1]);
		else if (*in < 32 || *in > 126)
			k = snprintf(e, sizeof(e), "\\%03o", *in);
		else
			k = snprintf(e, sizeof(e), "%c", *in);
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
