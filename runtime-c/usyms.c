/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space symbols: which file of the current task maps an address, and
 * which function of it holds the address. The functions are those of the
 * files the script's process(...) probes name (and -d's, --ldd's), read at
 * pass 2 and put into the module in one table (struct _stpx_usym_file, by
 * offset in the file); the mapping
 * comes from the task's memory map, under a try-lock (a handler cannot
 * wait for it: contended, the address is unknown).
 */
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/namei.h>

struct _stpx_usym {
	unsigned long offset;	/* of the function's first byte in the file */
	unsigned long size;
	const char *name;
};

/* How to find a frame's caller from here on in the file (x86-64): the
 * CFA is rsp (or rbp) + cfa_off, the return address is at CFA - 8, rbp
 * was saved at CFA + bp_off (0: not saved). cfa_off 0: not known. */
struct _stpx_urow {
	unsigned long offset;
	int cfa_rbp;
	int cfa_off;
	int bp_off;
};

/* From offset on (to the next row), the code is line `line` of source
 * file lfiles[file]; line 0: no line known there. */
struct _stpx_uline {
	unsigned long offset;
	unsigned int file;
	unsigned int line;
};

struct _stpx_usym_file {
	const char *path;
	const char *build_id;		/* hex, "" if it has none */
	const struct _stpx_usym *syms;	/* by offset */
	size_t n;
	const struct _stpx_urow *rows;	/* by offset */
	size_t nrows;
	/* Only for a script that asks for source lines (usymline() ...). */
	const struct _stpx_uline *lines;	/* by offset */
	size_t nlines;
	const char *const *lfiles;
	struct inode *inode;		/* found when the probes are armed */
};

/* The module's table, set before its probes are armed. */
static struct _stpx_usym_file *_stpx_usym_files;
static size_t _stpx_usym_nfiles;

/*
 * Where addr is in the current task: the mapped file's path into path
 * (size bytes; NULL: not wanted), and its inode and offset there. False if not
 * in a mapped file, or if the map cannot be read now.
 */
static notrace bool _stpx_umod(unsigned long addr, char *path, size_t size, struct inode **inode,
			       unsigned long *offset)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool found = false;

	if (!mm || in_nmi() || !mmap_read_trylock(mm))
		return false;
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr && vma->vm_file) {
		char *p = path ? d_path(&vma->vm_file->f_path, path, size) : NULL;

		if (!IS_ERR(p)) {
			if (p)
				memmove(path, p, strlen(p) + 1);
			*inode = file_inode(vma->vm_file);
			*offset = addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT);
			found = true;
		}
	}
	mmap_read_unlock(mm);
	return found;
}
NOKPROBE_SYMBOL(_stpx_umod);

/* The module's file whose inode this is, or NULL. */
static notrace const struct _stpx_usym_file *_stpx_usym_file_of(struct inode *inode)
{
	size_t i;

	for (i = 0; i < READ_ONCE(_stpx_usym_nfiles); i++)
		if (_stpx_usym_files[i].inode == inode)
			return &_stpx_usym_files[i];
	return NULL;
}

/*
 * Of n entries by offset, stride bytes apart, each starting with its
 * unsigned long offset: how many start at or before offset (the one
 * holding offset, if any, is the last of those).
 */
static notrace size_t _stpx_upto(const void *base, size_t n, size_t stride, unsigned long offset)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (*(const unsigned long *)((const char *)base + mid * stride) <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The function of the module's tables that holds offset in inode's file. */
static notrace const struct _stpx_usym *_stpx_usym_at(struct inode *inode, unsigned long offset)
{
	const struct _stpx_usym_file *f = _stpx_usym_file_of(inode);
	const struct _stpx_usym *s;
	size_t k;

	if (!f || !(k = _stpx_upto(f->syms, f->n, sizeof(*f->syms), offset)))
		return NULL;
	s = &f->syms[k - 1];
	return offset < s->offset + (s->size ? s->size : 1) ? s : NULL;
}

/* The module's file that the current task maps at addr, and addr's offset in it; NULL if none. */
static notrace const struct _stpx_usym_file *_stpx_usym_file_at(unsigned long addr, unsigned long *offset)
{
	struct inode *inode;

	if (!_stpx_umod(addr, NULL, 0, &inode, offset))
		return NULL;
	return _stpx_usym_file_of(inode);
}
NOKPROBE_SYMBOL(_stpx_usym_file_at);

/*
 * The source position of addr in the current task, as
 * _stpx_fileline_str() shows it (want: 1 file, 2 line, 3 both), from the
 * line tables of the module's files. Returns whether it was known.
 */
static notrace bool _stpx_uline_str(char *out, size_t size, unsigned long addr, int want)
{
	const struct _stpx_usym_file *f = NULL;
	const struct _stpx_uline *l = NULL;
	unsigned long offset;
	size_t k;

	if ((f = _stpx_usym_file_at(addr, &offset)) &&
	    (k = _stpx_upto(f->lines, f->nlines, sizeof(*f->lines), offset)) && f->lines[k - 1].line)
		l = &f->lines[k - 1];
	return _stpx_fileline_str(out, size, addr, l ? f->lfiles[l->file] : NULL, l ? l->line : 0, want);
}
NOKPROBE_SYMBOL(_stpx_uline_str);

/*
 * A .return probe has an entry half too: each call's record waits, keyed
 * by the task and the stack pointer at entry (where the return address
 * is), for that call's return, with the values its handler reads as they
 * were at entry (parameters, @entry), and the return address the kernel
 * is about to replace by its trampoline (which a user backtrace reads
 * instead: _stpx_usave_ra()). A call that never returns (a longjmp past
 * it) leaves its record behind: the next return of the task at a
 * shallower frame drops it, as does the end of the script.
 */
struct _stpx_usave {
	struct hlist_node node;
	const void *u;		/* its struct _stpx_uprobe (probes/uprobes.c) */
	pid_t tid;
	unsigned long sp;
	unsigned long ra;	/* the caller's return address */
	int64_t saved[];	/* the probe's entry_size bytes: saved[0] says whether they were */
};
/* Raw: handlers read it with interrupts off (PREEMPT_RT too); nothing is
 * allocated or freed under it. */
static DEFINE_RAW_SPINLOCK(_stpx_usave_lock);
static DEFINE_HASHTABLE(_stpx_usaves, 8);
static atomic_t _stpx_nusaves = ATOMIC_INIT(0);
#define STPX_USAVES_MAX 16384	/* calls in flight at once, beyond which returns are skipped */

/*
 * The return address of the current task's call whose return address is
 * at sp, if a .return probe's entry half recorded it: what the stack
 * holds there now is the kernel's trampoline. 0 if none.
 */
static notrace unsigned long _stpx_usave_ra(unsigned long sp)
{
	struct _stpx_usave *s;
	unsigned long flags, ra = 0;

	if (!atomic_read(&_stpx_nusaves))
		return 0;
	raw_spin_lock_irqsave(&_stpx_usave_lock, flags);
	hash_for_each_possible(_stpx_usaves, s, node, current->pid)
		if (s->tid == current->pid && s->sp == sp) {
			ra = s->ra;
			break;
		}
	raw_spin_unlock_irqrestore(&_stpx_usave_lock, flags);
	return ra;
}
NOKPROBE_SYMBOL(_stpx_usave_ra);

/* The unwind row for offset in inode's file, or NULL. */
static notrace const struct _stpx_urow *_stpx_urow_at(struct inode *inode, unsigned long offset)
{
	const struct _stpx_usym_file *f = _stpx_usym_file_of(inode);
	size_t k;

	if (!f || !(k = _stpx_upto(f->rows, f->nrows, sizeof(*f->rows), offset)))
		return NULL;
	return f->rows[k - 1].cfa_off ? &f->rows[k - 1] : NULL;
}

/*
 * The user stack of the current task into c->stack_pcs, innermost first:
 * where it is, then the return addresses of its callers, as far as the
 * files the module has unwind rows for (those of its process(...)
 * probes) lead. Returns how many.
 */
static notrace int _stpx_ustack_from(struct _stpx_context *c, unsigned long pc, unsigned long sp, unsigned long bp);

static notrace int _stpx_ustack(struct _stpx_context *c)
{
	struct pt_regs *regs = c->regs && user_mode(c->regs) ? c->regs : current->mm ? task_pt_regs(current) : NULL;

	if (!regs)
		return 0;
	return _stpx_ustack_from(c, instruction_pointer(regs), user_stack_pointer(regs), regs->bp);
}
NOKPROBE_SYMBOL(_stpx_ustack);

/* The same from the given pc, sp and frame pointer (print_ubacktrace(pc, sp, fp)). */
static notrace int _stpx_ustack_from(struct _stpx_context *c, unsigned long pc, unsigned long sp, unsigned long bp)
{
	unsigned long cfa, ra, saved_ra;
	int n = 0;

	if (!current->mm)
		return 0;
	while (n < MAXBACKTRACE && pc) {
		const struct _stpx_urow *row;
		struct inode *inode;
		unsigned long offset;

		c->stack_pcs[n++] = pc;
		/* A return address: its call is the instruction before it. */
		if (!_stpx_umod(n == 1 ? pc : pc - 1, NULL, 0, &inode, &offset))
			break;
		row = _stpx_urow_at(inode, offset);
		if (!row)
			break;
		cfa = (row->cfa_rbp ? bp : sp) + row->cfa_off;
		if (copy_from_user_nofault(&ra, (const void __user *)(cfa - 8), sizeof(ra)))
			break;
		/* Under a .return probe, the kernel's trampoline: the call's own. */
		saved_ra = _stpx_usave_ra(cfa - 8);
		if (saved_ra)
			ra = saved_ra;
		if (row->bp_off && copy_from_user_nofault(&bp, (const void __user *)(cfa + row->bp_off), sizeof(bp)))
			break;
		if (cfa <= sp)
			break;	/* (a stack only grows down: a loop otherwise) */
		sp = cfa;
		pc = ra;
	}
	return n;
}
NOKPROBE_SYMBOL(_stpx_ustack_from);

/* How much of an address usymname(), usymdata() and a user stack's lines show. */
enum {
	STPX_USYMS_NAME,	/* "name" (usymname()) */
	STPX_USYMS_BRIEF,	/* "name+0xoff" (print_ubacktrace_brief()) */
	STPX_USYMS_SIMPLE,	/* "name+0xoff [path]" (sprint_ubacktrace()) */
	STPX_USYMS_FULL,	/* "name+0xoff/0xsize [path]" (usymdata(); print_ubacktrace()
				 * puts " 0xADDR : " before it) */
};

static notrace void _stpx_usym_str(char *out, size_t size, unsigned long addr, int form);

/*
 * The user stack, one line per frame, as _stpx_print_syms() prints a
 * kernel one, in one of the forms above (a frame without a symbol: its
 * hex address, and its file where known); with lines (FULL only), each
 * frame's source position after its symbol (" at file:line",
 * print_ubacktrace_fileline()).
 */
static notrace void _stpx_print_usyms_lines(struct _stpx_context *c, char *dst, const unsigned long *pcs, int n,
					    int form, bool lines)
{
	bool full = form == STPX_USYMS_FULL;
	char head[24];
	int i;

	for (i = 0; i < n; i++) {
		size_t hlen = 0, slen;

		_stpx_usym_str(c->sym_buf, sizeof(c->sym_buf), pcs[i], form);
		if (lines) {
			/* Before the " [file]" that usymdata() ends with. */
			char *mod = strstr(c->sym_buf, " [");
			char where[96] = " at ";
			size_t wlen;

			if (_stpx_uline_str(where + 4, sizeof(where) - 4, i ? pcs[i] - 1 : pcs[i], 3)) {
				wlen = strlen(where);
				if (!mod)
					mod = c->sym_buf + strlen(c->sym_buf);
				if (strlen(c->sym_buf) + wlen < sizeof(c->sym_buf)) {
					memmove(mod + wlen, mod, strlen(mod) + 1);
					memcpy(mod, where, wlen);
				}
			}
		}
		slen = strlen(c->sym_buf);
		if (full) {
			hlen = scnprintf(head, sizeof(head), " 0x%lx : ", pcs[i]);
			if (dst && strlen(dst) + hlen + slen + 1 > MAXSTRINGLEN - 1)
				return;
			_stpx_out_mem(c, dst, head, hlen);
		}
		_stpx_out_mem(c, dst, c->sym_buf, slen);
		_stpx_out_mem(c, dst, "\n", 1);
	}
}
NOKPROBE_SYMBOL(_stpx_print_usyms_lines);

static notrace void _stpx_print_usyms(struct _stpx_context *c, char *dst, const unsigned long *pcs, int n, int form)
{
	_stpx_print_usyms_lines(c, dst, pcs, n, form, false);
}
NOKPROBE_SYMBOL(_stpx_print_usyms);

/*
 * addr in the current task in one of the forms above, into out: usymname()
 * and print_ubacktrace_brief() give the hex address where no symbol holds
 * it; the other forms then give "0xADDR [path]" (the path alone as much
 * as is known, and the hex address alone outside any file).
 */
static notrace void _stpx_usym_str(char *out, size_t size, unsigned long addr, int form)
{
	struct inode *inode = NULL;
	unsigned long offset = 0;
	const struct _stpx_usym *s = NULL;
	/* (The path goes into out; what comes before it is made apart, then put in front.) */
	bool mapped = _stpx_umod(addr, out, size, &inode, &offset);
	char head[96];
	size_t len, room;

	if (mapped)
		s = _stpx_usym_at(inode, offset);
	if (!s && (form == STPX_USYMS_NAME || form == STPX_USYMS_BRIEF || !mapped)) {
		snprintf(out, size, "0x%lx", addr);
		return;
	}
	if (form == STPX_USYMS_NAME) {
		strscpy(out, s->name, size);
		return;
	}
	if (form == STPX_USYMS_BRIEF) {
		snprintf(out, size, "%s+0x%lx", s->name, offset - s->offset);
		return;
	}
	if (!s)
		snprintf(head, sizeof(head), "0x%lx [", addr);
	else if (form == STPX_USYMS_FULL)
		snprintf(head, sizeof(head), "%s+0x%lx/0x%lx [", s->name, offset - s->offset, s->size);
	else
		snprintf(head, sizeof(head), "%s+0x%lx [", s->name, offset - s->offset);
	len = strlen(head);
	room = size - 1 - len;
	if (strlen(out) > room - 1)
		out[room - 1] = '\0';
	memmove(out + len, out, strlen(out) + 1);
	memcpy(out, head, len);
	strlcat(out, "]", size);
}
NOKPROBE_SYMBOL(_stpx_usym_str);

/* The inode of the file at path, held (iput when done), or an ERR_PTR. */
static struct inode *_stpx_path_inode(const char *path)
{
	struct path p;
	struct inode *inode;
	int rc = kern_path(path, LOOKUP_FOLLOW, &p);

	if (rc)
		return ERR_PTR(rc);
	inode = igrab(d_inode(p.dentry));
	path_put(&p);
	return inode ? inode : ERR_PTR(-ENOENT);
}

/* Finds the files' inodes; a file that is not there has no symbols. */
static void _stpx_usyms_arm(struct _stpx_usym_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		files[i].inode = _stpx_path_inode(files[i].path);
		if (IS_ERR(files[i].inode))
			files[i].inode = NULL;
	}
	_stpx_usym_files = files;
	WRITE_ONCE(_stpx_usym_nfiles, n);
}

/* After the probes are disarmed: no handler reads the table any more. */
static void _stpx_usyms_disarm(void)
{
	size_t i;

	for (i = 0; i < _stpx_usym_nfiles; i++)
		if (_stpx_usym_files[i].inode)
			iput(_stpx_usym_files[i].inode);
	_stpx_usym_nfiles = 0;
	_stpx_usym_files = NULL;
}
