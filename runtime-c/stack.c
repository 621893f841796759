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
 * One line per address to dst (a string, cut at MAXSTRINGLEN) or, dst
 * NULL, to the print buffer. full: " 0xADDR : name+0xoff/0xsize [module]"
 * (print_backtrace(), print_stack(), print_syms()); else
 * "name+0xoff [module]" (sprint_backtrace(), sprint_stack(),
 * sprint_syms()).
 */
static notrace void _stpx_print_syms(struct _stpx_context *c, char *dst, const unsigned long *pcs, int n,
				     bool full)
{
	char head[24];
	int i;

	for (i = 0; i < n; i++) {
		const char *sym = _stpx_symdata(c, pcs[i], full);

		if (full) {
			_stpx_out_mem(c, dst, head, scnprintf(head, sizeof(head), " 0x%lx : ", pcs[i]));
		}
		_stpx_out_mem(c, dst, sym, strlen(sym));
		_stpx_out_mem(c, dst, "\n", 1);
	}
}
NOKPROBE_SYMBOL(_stpx_print_syms);

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

/* "0x... 0x..." of pcs[skip..n) into dst (backtrace(), callers()), whole words only. */
static notrace void _stpx_stack_hex(char *dst, const unsigned long *pcs, int n, int skip)
{
	size_t len = 0;
	int i;

	dst[0] = '\0';
	for (i = skip; i < n; i++) {
		char word[24];
		int w = scnprintf(word, sizeof(word), "%s0x%lx", len ? " " : "", pcs[i]);

		if (len + w > MAXSTRINGLEN - 1)
			break;
		memcpy(dst + len, word, w + 1);
		len += w;
	}
}
NOKPROBE_SYMBOL(_stpx_stack_hex);
