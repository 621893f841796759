/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space symbols: which file of the current task maps an address, and
 * which function of it holds the address. The functions are those of the
 * files the script's process(...) probes name, read at pass 2 and put into
 * the module (struct _stpx_usym_file, by offset in the file); the mapping
 * comes from the task's memory map, under a try-lock (a handler cannot
 * wait for it: contended, the address is unknown).
 */
#include <linux/mm.h>
#include <linux/namei.h>

struct _stpx_usym {
	unsigned long offset;	/* of the function's first byte in the file */
	unsigned long size;
	const char *name;
};

struct _stpx_usym_file {
	const char *path;
	const struct _stpx_usym *syms;	/* by offset */
	size_t n;
	struct inode *inode;		/* found when the probes are armed */
};

/* The module's tables (one per user-space probe family), set when its probes are armed. */
#define STPX_USYM_TABLES 4
static struct {
	struct _stpx_usym_file *files;
	size_t n;
} _stpx_usym_tables[STPX_USYM_TABLES];

/*
 * Where addr is in the current task: the mapped file's path into path
 * (a MAXSTRINGLEN buffer), and its inode and offset there. False if not
 * in a mapped file, or if the map cannot be read now.
 */
static notrace bool _stpx_umod(unsigned long addr, char *path, struct inode **inode, unsigned long *offset)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool found = false;

	if (!mm || in_nmi() || !mmap_read_trylock(mm))
		return false;
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr && vma->vm_file) {
		char *p = d_path(&vma->vm_file->f_path, path, MAXSTRINGLEN);

		if (!IS_ERR(p)) {
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

/* The function of the module's tables that holds offset in inode's file. */
static notrace const struct _stpx_usym *_stpx_usym_at(struct inode *inode, unsigned long offset)
{
	size_t t, i;

	for (t = 0; t < STPX_USYM_TABLES; t++)
	for (i = 0; i < READ_ONCE(_stpx_usym_tables[t].n); i++) {
		const struct _stpx_usym_file *f = &_stpx_usym_tables[t].files[i];
		size_t lo = 0, hi = f->n;

		if (f->inode != inode)
			continue;
		while (lo < hi) {	/* the last symbol starting at or before offset */
			size_t mid = lo + (hi - lo) / 2;

			if (f->syms[mid].offset <= offset)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && offset < f->syms[lo - 1].offset + (f->syms[lo - 1].size ? f->syms[lo - 1].size : 1))
			return &f->syms[lo - 1];
		return NULL;
	}
	return NULL;
}

/*
 * addr in the current task as usymname() (with_data false: "func", else
 * the hex address) or usymdata() ("func+0xoff/0xsize [path]"; without a
 * symbol "[path+0xoff]"... as much as is known) show it, into out.
 */
static notrace void _stpx_usym_str(char *out, unsigned long addr, bool with_data)
{
	struct inode *inode = NULL;
	unsigned long offset = 0;
	const struct _stpx_usym *s = NULL;
	/* (The path goes into out; what comes before it is made apart, then put in front.) */
	bool mapped = _stpx_umod(addr, out, &inode, &offset);
	char head[96];
	size_t len, room;

	if (mapped)
		s = _stpx_usym_at(inode, offset);
	if (!with_data || !mapped) {
		if (s)
			strscpy(out, s->name, MAXSTRINGLEN);
		else
			snprintf(out, MAXSTRINGLEN, "0x%lx", addr);
		return;
	}
	if (s)
		snprintf(head, sizeof(head), "%s+0x%lx/0x%lx [", s->name, offset - s->offset, s->size);
	else
		snprintf(head, sizeof(head), "0x%lx [", addr);
	len = strlen(head);
	room = MAXSTRINGLEN - 1 - len;
	if (strlen(out) > room - 1)
		out[room - 1] = '\0';
	memmove(out + len, out, strlen(out) + 1);
	memcpy(out, head, len);
	strlcat(out, "]", MAXSTRINGLEN);
}
NOKPROBE_SYMBOL(_stpx_usym_str);

/* Finds the files' inodes; a file that is not there has no symbols. */
static void _stpx_usyms_arm(struct _stpx_usym_file *files, size_t n)
{
	size_t i, t;

	for (t = 0; t < STPX_USYM_TABLES && _stpx_usym_tables[t].n; t++)
		;
	if (t == STPX_USYM_TABLES)
		return;
	for (i = 0; i < n; i++) {
		struct path p;

		files[i].inode = NULL;
		if (!kern_path(files[i].path, LOOKUP_FOLLOW, &p)) {
			files[i].inode = igrab(d_inode(p.dentry));
			path_put(&p);
		}
	}
	_stpx_usym_tables[t].files = files;
	WRITE_ONCE(_stpx_usym_tables[t].n, n);
}

/* After the probes are disarmed: no handler reads the table any more. */
static void _stpx_usyms_disarm(struct _stpx_usym_file *files)
{
	size_t i, t;

	for (t = 0; t < STPX_USYM_TABLES; t++) {
		if (_stpx_usym_tables[t].files != files)
			continue;
		for (i = 0; i < _stpx_usym_tables[t].n; i++)
			if (files[i].inode)
				iput(files[i].inode);
		_stpx_usym_tables[t].n = 0;
		_stpx_usym_tables[t].files = NULL;
	}
}
