/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C-style escaping of strings (text_str/text_strn, string_quoted, the
 * strings of $var$), on its own so that user-space unit tests can build it.
 */
#ifndef _STPX_ESCAPE_H_
#define _STPX_ESCAPE_H_

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

#endif /* _STPX_ESCAPE_H_ */
