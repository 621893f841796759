/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's source lines, for symline(), symfile(), symfileline() and
 * print_backtrace_fileline(): the vmlinux line table that the generated
 * code put before this file (translator/codegen/kernel_lines.cpp), in
 * blocks of 64 rows, each block's first row whole in _stpx_klines_index
 * and the rest as varints in _stpx_klines_data. Addresses are link-time
 * ones, moved by _stpx_kaslr_delta. A module's addresses have no line.
 */

static notrace unsigned long _stpx_klines_varint(const unsigned char **p, const unsigned char *end)
{
	unsigned long v = 0;
	int shift = 0;

	while (*p < end && shift < 64) {
		unsigned char b = *(*p)++;

		v |= (unsigned long)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	return v;
}
NOKPROBE_SYMBOL(_stpx_klines_varint);

/* The file and line of the kernel's code at addr; false if not known. */
static notrace bool _stpx_kline_at(unsigned long addr, const char **file, unsigned int *line)
{
	const struct _stpx_kline_block *b;
	const unsigned char *p, *end;
	unsigned long link = addr - _stpx_kaslr_delta, off, a;
	unsigned int f, l;
	size_t lo = 0, hi = STPX_KLINES_NBLOCKS;

	if (!STPX_KLINES_NBLOCKS || link < STPX_KLINES_BASE || link - STPX_KLINES_BASE > 0xffffffffUL)
		return false;
	off = link - STPX_KLINES_BASE;
	while (lo < hi) {	/* the last block starting at or before off */
		size_t mid = lo + (hi - lo) / 2;

		if (_stpx_klines_index[mid].addr <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	b = &_stpx_klines_index[lo - 1];
	a = b->addr;
	f = b->file;
	l = b->line;
	p = _stpx_klines_data + b->data;
	end = lo < STPX_KLINES_NBLOCKS ? _stpx_klines_data + _stpx_klines_index[lo].data :
					   _stpx_klines_data + sizeof(_stpx_klines_data) - 1;
	while (p < end) {
		unsigned long step = _stpx_klines_varint(&p, end), v;

		if (a + step > off)
			break;
		a += step;
		v = _stpx_klines_varint(&p, end);
		l += (v & 2) ? -(int)((v >> 2) + 1) : (int)(v >> 2);
		if (v & 1)
			f = _stpx_klines_varint(&p, end);
	}
	if (!l || f >= ARRAY_SIZE(_stpx_klines_files))
		return false;
	*file = _stpx_klines_files[f];
	*line = l;
	return true;
}
NOKPROBE_SYMBOL(_stpx_kline_at);

/* addr's source position as _stpx_fileline_str() shows it (want: 1 file, 2 line, 3 both). */
static notrace bool _stpx_kline_str(char *out, size_t size, unsigned long addr, int want)
{
	const char *file = NULL;
	unsigned int line = 0;

	_stpx_kline_at(addr, &file, &line);
	return _stpx_fileline_str(out, size, addr, file, line, want);
}
NOKPROBE_SYMBOL(_stpx_kline_str);

/* print_backtrace_fileline(): print_backtrace()'s lines with " at file:line" before the module. */
static notrace void _stpx_print_backtrace_lines(struct _stpx_context *c)
{
	char where[128] = " at ";
	char head[24];
	int i, n = _stpx_stack_kernel(c);

	for (i = 0; i < n; i++) {
		const char *sym = _stpx_symdata(c, c->stack_pcs[i], true);
		const char *mod = strstr(sym, " [");
		size_t before = mod ? (size_t)(mod - sym) : strlen(sym);

		_stpx_out_mem(c, NULL, head, scnprintf(head, sizeof(head), " 0x%lx : ", c->stack_pcs[i]));
		_stpx_out_mem(c, NULL, sym, before);
		/* A return address: its call is the byte before it. */
		if (_stpx_kline_str(where + 4, sizeof(where) - 4, i ? c->stack_pcs[i] - 1 : c->stack_pcs[i], 3))
			_stpx_out_mem(c, NULL, where, strlen(where));
		_stpx_out_mem(c, NULL, sym + before, strlen(sym + before));
		_stpx_out_mem(c, NULL, "\n", 1);
	}
}
NOKPROBE_SYMBOL(_stpx_print_backtrace_lines);
