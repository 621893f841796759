/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel backtraces and symbol names, for the context tapsets
 * (backtrace(), print_backtrace(), symname(), symdata(), modname(), ...).
 *
 * The stack is walked by the kernel's own unwinder (ORC on Debian's
 * kernels; __unwind_start, unwind_next_frame and
 * unwind_get_return_address are exported), as perf walks it for a sample:
 * from the probed registers when the probe has real ones, else from here,
 * leaving out the module's own frames. Addresses are named by
 * sprint_symbol(), which knows the kernel's symbols and every loaded
 * module's, KASLR included. Nothing here allocates or sleeps; the symbol
 * text is built in the context (c->sym_buf), not on the stack.
 */
#include <asm/unwind.h>

/*
 * The kernel stack of the probe hit into c->stack_pcs: the probed (or
 * interrupted) address first, then the return addresses of its callers,
 * innermost first; at most MAXBACKTRACE of them. Returns how many. A hit
 * in user mode has no kernel stack: 0.
 */
static notrace int _stpx_stack_kernel(struct _stpx_context *c)
{
	struct pt_regs *regs = c->regs;
	unsigned long *pcs = c->stack_pcs;
	struct unwind_state state;
	bool from_regs;
	int n = 0;

	/*
	 * Tracepoints hand their arguments in a made-up pt_regs whose ip is 0:
	 * those registers locate nothing, so walk from here as for begin.
	 */
	from_regs = regs && instruction_pointer(regs);
	if (from_regs) {
		if (user_mode(regs))
			return 0;
		pcs[n++] = instruction_pointer(regs);
		/* Starts at the frame that called the code regs were taken in. */
		unwind_start(&state, current, regs, NULL);
	} else {
		unwind_start(&state, current, NULL, NULL);
	}
	for (; n < MAXBACKTRACE && !unwind_done(&state); unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (!from_regs && within_module(addr, THIS_MODULE))
			continue;
		pcs[n++] = addr;
	}
	return n;
}
NOKPROBE_SYMBOL(_stpx_stack_kernel);

/* sprint_symbol() writes "0x..." for an address no symbol holds. */
static inline bool _stpx_sym_found(const char *s)
{
	return !(s[0] == '0' && s[1] == 'x' && !strchr(s, '+'));
}

/*
 * addr as stap's symdata() names it, in c->sym_buf: "name+0xoff/0xsize
 * [module]", the module being "kernel" for the kernel's own symbols;
 * without "/0xsize" unless size; "0x..." (the address) when no symbol
 * holds addr.
 */
static notrace const char *_stpx_symdata(struct _stpx_context *c, unsigned long addr, bool size)
{
	char *s = c->sym_buf;
	char *mod, *slash;
	int len;

	len = sprint_symbol(s, addr);
	if (!_stpx_sym_found(s))
		return s;
	mod = strstr(s, " [");
	if (!size) {
		if (mod)
			*mod = '\0';
		slash = strrchr(s, '/');
		if (slash) {
			if (mod) {
				*mod = ' ';
				memmove(slash, mod, strlen(mod) + 1);
				mod = slash;
			} else {
				*slash = '\0';
			}
		}
		len = strlen(s);
	}
	if (!mod)
		strscpy(s + len, " [kernel]", sizeof(c->sym_buf) - len);
	return s;
}
NOKPROBE_SYMBOL(_stpx_symdata);

/* The name of the function (symbol) holding addr, or "0x..." (symname()). */
static notrace const char *_stpx_symname(struct _stpx_context *c, unsigned long addr)
{
	char *s = c->sym_buf;
	char *mod;

	sprint_symbol_no_offset(s, addr);
	mod = strstr(s, " [");
	if (mod)
		*mod = '\0';
	return s;
}
NOKPROBE_SYMBOL(_stpx_symname);

/*
 * The module holding addr: "kernel" for the kernel itself, NULL when no
 * symbol of the kernel or of a loaded module holds it.
 */
static notrace const char *_stpx_modname(struct _stpx_context *c, unsigned long addr)
{
	char *s = c->sym_buf;
	char *mod;

	sprint_symbol(s, addr);
	if (!_stpx_sym_found(s))
		return NULL;
	mod = strstr(s, " [");
	if (!mod)
		return "kernel";
	mod += 2;
	mod[strcspn(mod, "] ")] = '\0';
	return mod;
}
NOKPROBE_SYMBOL(_stpx_modname);

/*
 * A source position as symfileline() and usymfileline() show it: "file:line"
 * (want 3), the file (1) or the line (2); file NULL (not known): the hex
 * address. Returns whether it was known.
 */
static notrace bool _stpx_fileline_str(char *out, size_t size, unsigned long addr, const char *file,
				       unsigned int line, int want)
{
	if (!file) {
		snprintf(out, size, "0x%lx", addr);
		return false;
	}
	if (want == 1)
		strscpy(out, file, size);
	else if (want == 2)
		snprintf(out, size, "%u", line);
	else
		snprintf(out, size, "%s:%u", file, line);
	return true;
}
NOKPROBE_SYMBOL(_stpx_fileline_str);

/*
 * One line per address to dst (a string) or, dst NULL, to the print
 * buffer. full: " 0xADDR : name+0xoff/0xsize [module]" (print_backtrace(),
 * print_stack(), print_syms()), whole lines only in a string; else
 * "name+0xoff [module]" (sprint_backtrace(), sprint_stack(),
 * sprint_syms()), cut at MAXSTRINGLEN.
 */
static notrace void _stpx_print_syms(struct _stpx_context *c, char *dst, const unsigned long *pcs, int n,
				     bool full)
{
	char head[24];
	int i;

	for (i = 0; i < n; i++) {
		const char *sym = _stpx_symdata(c, pcs[i], full);
		size_t hlen = 0, slen = strlen(sym);

		if (full) {
			hlen = scnprintf(head, sizeof(head), " 0x%lx : ", pcs[i]);
			if (dst && strlen(dst) + hlen + slen + 1 > MAXSTRINGLEN - 1)
				return;
			_stpx_out_mem(c, dst, head, hlen);
		}
		_stpx_out_mem(c, dst, sym, slen);
		_stpx_out_mem(c, dst, "\n", 1);
	}
}
NOKPROBE_SYMBOL(_stpx_print_syms);

/*
 * The function a kretprobe handler runs for (its probed address), while
 * one runs on this CPU, else 0: set around the handler by kprobes.c, for
 * print_backtrace()'s "Returning from:" line.
 */
static DEFINE_PER_CPU(unsigned long, _stpx_kretprobe_func);

/* print_backtrace(): the stack in full lines; in a .return probe, first the function returned from. */
static notrace void _stpx_print_backtrace(struct _stpx_context *c)
{
	unsigned long func = this_cpu_read(_stpx_kretprobe_func);
	int n = _stpx_stack_kernel(c);

	if (func && n && c->probe->is_return) {
		_stpx_print_str(c, "Returning from: ");
		_stpx_print_syms(c, NULL, &func, 1, true);
		_stpx_print_str(c, "Returning to  : ");
	}
	_stpx_print_syms(c, NULL, c->stack_pcs, n, true);
}
NOKPROBE_SYMBOL(_stpx_print_backtrace);

/*
 * The addresses of a backtrace() string ("0x... 0x..."), into
 * c->stack_pcs; returns how many. Parsing stops at the first word that is
 * not a number.
 */
static notrace int _stpx_parse_stack(struct _stpx_context *c, const char *s)
{
	char word[24];
	int n = 0;

	while (n < MAXBACKTRACE) {
		size_t len;

		s = skip_spaces(s);
		len = strcspn(s, " \t\n");
		if (!len || len >= sizeof(word))
			break;
		memcpy(word, s, len);
		word[len] = '\0';
		if (kstrtoul(word, 0, &c->stack_pcs[n]))
			break;
		n++;
		s += len;
	}
	return n;
}
NOKPROBE_SYMBOL(_stpx_parse_stack);

/*
 * The addresses pcs[0..n) as hex words into dst, whole words only, each
 * followed by a space as in stap's backtrace() (trailing), else separated
 * by one (callers()).
 */
static notrace void _stpx_stack_hex(char *dst, const unsigned long *pcs, int n, bool trailing)
{
	size_t len = 0;
	int i;

	dst[0] = '\0';
	for (i = 0; i < n; i++) {
		char word[24];
		int w = trailing ? scnprintf(word, sizeof(word), "0x%lx ", pcs[i])
				 : scnprintf(word, sizeof(word), "%s0x%lx", i ? " " : "", pcs[i]);

		if (len + w > MAXSTRINGLEN - 1)
			break;
		memcpy(dst + len, word, w + 1);
		len += w;
	}
}
NOKPROBE_SYMBOL(_stpx_stack_hex);
