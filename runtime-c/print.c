/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Script output. Each CPU's context formats into its own print buffer; the
 * buffer goes to the transport as one record when the handler ends (or
 * earlier, when it fills), so one handler's output is never interleaved
 * with another's. (When a handler prints more than the buffer holds, its
 * output goes out as several records, split wherever the buffer filled,
 * in a number or a literal alike.)
 */

/* Inline: on every probe hit, and most hits print nothing. */
static __always_inline void _stpx_print_flush(struct _stpx_context *c)
{
	if (c->print_len) {
		_stpx_transport_write(c->print_buf, c->print_len);
		c->print_len = 0;
	}
}

static noinline void _stpx_print_mem_slow(struct _stpx_context *c, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(c->print_buf) - c->print_len;
		size_t chunk = min(n, room);

		memcpy(c->print_buf + c->print_len, s, chunk);
		c->print_len += chunk;
		s += chunk;
		n -= chunk;
		if (c->print_len == sizeof(c->print_buf))
			_stpx_print_flush(c);
	}
}

/*
 * Inline: most calls copy a literal of a length known here, which the
 * compiler then copies with a few moves.
 */
static __always_inline void _stpx_print_mem(struct _stpx_context *c, const char *s, size_t n)
{
	if (likely(n < sizeof(c->print_buf) - c->print_len)) {
		memcpy(c->print_buf + c->print_len, s, n);
		c->print_len += n;
		return;
	}
	_stpx_print_mem_slow(c, s, n);
}

static inline void _stpx_print_str(struct _stpx_context *c, const char *s)
{
	_stpx_print_mem(c, s, strlen(s));
}

/*
 * printf's plain conversions (no flag, width or precision), written here
 * rather than by vsnprintf, which decodes its format on every call: %d
 * (and print()'s numbers), and %u, %x, %X of the 64-bit value.
 */
static void _stpx_print_digits(struct _stpx_context *c, u64 v, bool neg, char conv)
{
	const char *digits = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[24], *p = buf + sizeof(buf);

	if (conv == 'x' || conv == 'X') {
		do {
			*--p = digits[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do
			*--p = '0' + do_div(v, 10);
		while (v);
	}
	if (neg)
		*--p = '-';
	_stpx_print_mem(c, p, buf + sizeof(buf) - p);
}

static inline void _stpx_print_dec(struct _stpx_context *c, int64_t v)
{
	/* The magnitude as unsigned, so that INT64_MIN needs no special case. */
	_stpx_print_digits(c, v < 0 ? -(u64)v : (u64)v, v < 0, 'd');
}

static inline void _stpx_print_unsigned(struct _stpx_context *c, u64 v, char conv)
{
	_stpx_print_digits(c, v, false, conv);
}

static __printf(2, 3) void _stpx_printf(struct _stpx_context *c, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(c->print_buf) - c->print_len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->print_buf + c->print_len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < room) {
		c->print_len += n;
		return;
	}
	/* Did not fit: flush what came before and format again. */
	if (c->print_len) {
		_stpx_print_flush(c);
		va_start(ap, fmt);
		n = vsnprintf(c->print_buf, sizeof(c->print_buf), fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
	}
	c->print_len = min_t(size_t, n, sizeof(c->print_buf) - 1);
}

/*
 * Output of sprintf and of the conversions vsnprintf cannot do. "dst" is
 * the string being built (sprintf), or NULL for the print buffer.
 */
static void _stpx_out_mem(struct _stpx_context *c, char *dst, const char *s, size_t n)
{
	size_t len;

	if (!dst) {
		_stpx_print_mem(c, s, n);
		return;
	}
	len = strnlen(dst, MAXSTRINGLEN - 1);
	n = min(n, (size_t)(MAXSTRINGLEN - 1 - len));
	memcpy(dst + len, s, n);
	dst[len + n] = '\0';
}

static void _stpx_out_pad(struct _stpx_context *c, char *dst, int64_t n)
{
	static const char spaces[] = "                                ";

	while (n > 0) {
		size_t chunk = min_t(int64_t, n, sizeof(spaces) - 1);

		_stpx_out_mem(c, dst, spaces, chunk);
		n -= chunk;
	}
}

/* sprintf: appends to dst, cut at MAXSTRINGLEN - 1 bytes. */
static __printf(2, 3) void _stpx_sprintf_cat(char *dst, const char *fmt, ...)
{
	size_t len = strnlen(dst, MAXSTRINGLEN - 1);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst + len, MAXSTRINGLEN - len, fmt, ap);
	va_end(ap);
}

/* The most bytes one %m or %M may dump. */
#ifndef STPX_MAXMEMDUMP
#define STPX_MAXMEMDUMP STPX_PRINT_BUF_SIZE
#endif

/* %#c: C escapes for non-printing characters, else \ooo. */
static void _stpx_format_char_escaped(struct _stpx_context *c, char *dst, u8 ch, char *buf)
{
	static const char esc[] = "\aa\bb\tt\nn\vv\ff\rr";
	const char *e = ch ? strchr(esc, ch) : NULL;

	if (e && ((e - esc) % 2) == 0)
		snprintf(buf, 8, "\\%c", e[1]);
	else if (ch < 0x20 || ch >= 0x7f)
		snprintf(buf, 8, "\\%03o", ch);
	else
		snprintf(buf, 8, "%c", ch);
}

/*
 * One %b, %m, %M or %#c conversion. width and prec are -1 when absent.
 * Returns NULL, or an error message (in c->error_buf) for a memory fault
 * or a bad length.
 */
static const char *_stpx_format_special(struct _stpx_context *c, char *dst, char conv, const char *flags,
					int64_t width, int64_t prec, int64_t v)
{
	bool left = strchr(flags, '-') != NULL;
	bool user = strchr(flags, '#') != NULL;
	char buf[64];
	int64_t len, done;

	switch (conv) {
	case 'b': {
		/* Native byte order, like the value in memory. */
		u64 u = (u64)v;
		size_t n = width > 0 ? (size_t)width : 8;

		switch (n) {
		case 1: { u8 x = u; _stpx_out_mem(c, dst, (const char *)&x, 1); break; }
		case 2: { u16 x = u; _stpx_out_mem(c, dst, (const char *)&x, 2); break; }
		case 4: { u32 x = u; _stpx_out_mem(c, dst, (const char *)&x, 4); break; }
		default: _stpx_out_mem(c, dst, (const char *)&u, 8); break;
		}
		return NULL;
	}
	case 'c':
		_stpx_format_char_escaped(c, dst, (u8)v, buf);
		len = strlen(buf);
		if (!left)
			_stpx_out_pad(c, dst, width - len);
		_stpx_out_mem(c, dst, buf, len);
		if (left)
			_stpx_out_pad(c, dst, width - len);
		return NULL;
	}

	/* %m and %M: prec bytes at address v (default 1). */
	if (prec < 0)
		prec = 1;
	if (prec > STPX_MAXMEMDUMP) {
		snprintf(c->error_buf, MAXSTRINGLEN, "memory dump of %lld bytes exceeds STPX_MAXMEMDUMP",
			 (long long)prec);
		return c->error_buf;
	}
	len = conv == 'M' ? 2 * prec : prec;
	if (!left)
		_stpx_out_pad(c, dst, width - len);
	for (done = 0; done < prec;) {
		size_t chunk = min_t(int64_t, prec - done, conv == 'M' ? sizeof(buf) / 2 : sizeof(buf));
		const void *src = (const void *)(unsigned long)(v + done);
		long rc = user ? copy_from_user_nofault(buf, (const void __user *)src, chunk)
			       : copy_from_kernel_nofault(buf, src, chunk);

		if (rc) {
			snprintf(c->error_buf, MAXSTRINGLEN, "%s read fault at 0x%016llx", user ? "user" : "kernel",
				 (unsigned long long)(v + done));
			return c->error_buf;
		}
		if (conv == 'M') {
			char hex[sizeof(buf)];
			size_t i;

			for (i = 0; i < chunk; i++) {
				hex[2 * i] = hex_asc_lo((u8)buf[i] >> 4);
				hex[2 * i + 1] = hex_asc_lo(buf[i]);
			}
			_stpx_out_mem(c, dst, hex, 2 * chunk);
		} else {
			_stpx_out_mem(c, dst, buf, chunk);
		}
		done += chunk;
	}
	if (left)
		_stpx_out_pad(c, dst, width - len);
	return NULL;
}
