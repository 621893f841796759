/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Script output. Each CPU's context formats into its own print buffer; the
 * buffer goes to the transport as one record when the handler ends (or
 * earlier, when it fills), so one handler's output is never interleaved
 * with another's.
 */

static void _stpx_print_flush(struct _stpx_context *c)
{
	if (c->print_len) {
		_stpx_transport_write(c->print_buf, c->print_len);
		c->print_len = 0;
	}
}

static void _stpx_print_mem(struct _stpx_context *c, const char *s, size_t n)
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

static inline void _stpx_print_str(struct _stpx_context *c, const char *s)
{
	_stpx_print_mem(c, s, strlen(s));
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

static __printf(2, 3) const char *_stpx_sprintf(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, MAXSTRINGLEN, fmt, ap);
	va_end(ap);
	return dst;
}
