/* SPDX-License-Identifier: GPL-2.0 */
/*
 * process("PATH").function("NAME") and its .return: a uprobe per probe on
 * the file at PATH, at the file offset of the function's first
 * instruction. The kernel sets the breakpoint in every mapping of the file,
 * those that exist when the probe is armed and those made later, so the
 * probe fires in every process that runs the file (or maps the library).
 * The handler runs in the task that hit it, with its user registers.
 *
 * A probe can be for some processes only: those running one program (exe:
 * process("EXE").library("LIB")), through the consumer's filter, so that
 * the breakpoint is not even set in the others' copies of a library; the
 * process with one id (process(PID)); and under -c/-x, those of the
 * target's tree (stap's rule). The hit path checks all three.
 *
 * The offsets were read from the file at pass 2: before anything is armed,
 * each file must still be what pass 2 read (its size, its build ID and the
 * bytes at each probed offset), or the module refuses to start and says
 * which file changed and how.
 */
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/uprobes.h>

struct _stpx_uprobe {
	const struct _stpx_probe *probe;
	const char *path;
	loff_t offset;		/* in the file */
	loff_t ref_ctr_offset;	/* an SDT semaphore's offset in the file, or 0 */
	loff_t size;		/* the file's size at pass 2 */
	/* The first bytes at `offset` at pass 2 (a function's first instruction). */
	unsigned char code[4];
	/* The file's GNU build ID at pass 2 and where it is in the file, or NULL. */
	const char *build_id;
	int build_id_len;
	loff_t build_id_offset;
	int is_return;
	const char *exe;	/* only in processes running this program, or NULL */
	long pid;		/* only in this process, or 0 */
	struct inode *exe_inode;	/* exe's, held while armed */
	/* The entry point generated for the probe's declaration (STPX_UPROBE_HIT); not .return. */
	int (*entry)(struct uprobe_consumer *uc, struct pt_regs *regs);
	struct inode *inode;
	struct uprobe_consumer uc;
#ifdef STPX_HAVE_UPROBE_REGISTER_HANDLE
	struct uprobe *handle;	/* what uprobe_register() gave, while registered */
#endif
	int registered;
};

/* Whether mm runs the program whose inode is exe. */
static notrace bool _stpx_mm_runs(struct mm_struct *mm, const struct inode *exe)
{
	struct file *f;
	bool runs;

	if (!mm)
		return false;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	runs = f && file_inode(f) == exe;
	rcu_read_unlock();
	return runs;
}
NOKPROBE_SYMBOL(_stpx_mm_runs);

/* Whether u's probe is for the current task's process. */
static __always_inline bool _stpx_uprobe_wanted(const struct _stpx_uprobe *u)
{
	if (!_stpx_process_allowed())
		return false;
	if (u->pid && task_tgid_nr(current) != u->pid)
		return false;
	if (u->exe_inode && !_stpx_mm_runs(current->mm, u->exe_inode))
		return false;
	return !_stpx_target || _stpx_in_target_tree(current);
}

/* The consumer's filter for a probe with an exe: breakpoints in its processes only. */
#ifdef STPX_HAVE_UPROBE_FILTER_MM_ONLY
static bool _stpx_uprobe_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
#else
static bool _stpx_uprobe_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx, struct mm_struct *mm)
#endif
{
	return _stpx_mm_runs(mm, container_of(uc, struct _stpx_uprobe, uc)->exe_inode);
}

/*
 * STPX_UPROBE_HIT(name, proto): the uprobe entry point for the points of
 * one declaration, proto being the first of them in the (const) probe
 * table, so that its handler, locks and flags are compile-time constants,
 * as STPX_KPROBE_PRE does for kprobes. (It returns 0, not
 * UPROBE_HANDLER_REMOVE: the probe stays in the process.)
 */
#define STPX_UPROBE_HIT(name, proto)                                          \
	static notrace int name(struct uprobe_consumer *uc, struct pt_regs *regs) \
	{                                                                     \
		const struct _stpx_uprobe *u = container_of(uc, struct _stpx_uprobe, uc); \
		if (_stpx_uprobe_wanted(u))                                   \
			_stpx_probe_hit(proto, u->probe, regs, NULL, NULL);   \
		return 0;                                                     \
	}                                                                     \
	NOKPROBE_SYMBOL(name)

/* (A .return probe's entry records: struct _stpx_usave, runtime-c/usyms.c.) */

static notrace int _stpx_uretprobe_entry(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	const struct _stpx_uprobe *u = container_of(uc, struct _stpx_uprobe, uc);
	struct _stpx_usave *s;
	unsigned long flags;

	if (!_stpx_uprobe_wanted(u))
		return 0;
	/* (A uprobe's handlers run in the task, preemptible, where even
	 * PREEMPT_RT lets the allocator run: not in a probe handler proper.) */
	if (atomic_inc_return(&_stpx_nusaves) > STPX_USAVES_MAX ||
	    !(s = kmalloc(sizeof(*s) + (u->probe->nsaved ? u->probe->entry_size : 0), GFP_ATOMIC))) {
		atomic_dec(&_stpx_nusaves);
		return 0;
	}
	s->u = u;
	s->tid = current->pid;
	s->sp = user_stack_pointer(regs);
	if (copy_from_user_nofault(&s->ra, (const void __user *)s->sp, sizeof(s->ra)))
		s->ra = 0;
	if (u->probe->nsaved)
		_stpx_run_entry(u->probe, regs, s->saved);
	raw_spin_lock_irqsave(&_stpx_usave_lock, flags);
	hash_add(_stpx_usaves, &s->node, s->tid);
	raw_spin_unlock_irqrestore(&_stpx_usave_lock, flags);
	return 0;
}
NOKPROBE_SYMBOL(_stpx_uretprobe_entry);

/* This call's saved values, taken out (NULL if none); those of calls of u deeper in this task's stack are dropped. */
static struct _stpx_usave *_stpx_usave_take(const struct _stpx_uprobe *u, unsigned long entry_sp)
{
	struct _stpx_usave *s, *found = NULL;
	struct hlist_node *tmp;
	HLIST_HEAD(dropped);	/* freed after the (raw) lock */
	unsigned long flags;

	raw_spin_lock_irqsave(&_stpx_usave_lock, flags);
	hash_for_each_possible_safe(_stpx_usaves, s, tmp, node, current->pid) {
		if (s->tid != current->pid || s->u != u || s->sp > entry_sp)
			continue;
		hash_del(&s->node);
		atomic_dec(&_stpx_nusaves);
		if (s->sp == entry_sp && !found)
			found = s;
		else
			hlist_add_head(&s->node, &dropped);
	}
	raw_spin_unlock_irqrestore(&_stpx_usave_lock, flags);
	hlist_for_each_entry_safe(s, tmp, &dropped, node)
		kfree(s);
	return found;
}

static notrace int _stpx_uretprobe_handler(struct uprobe_consumer *uc, unsigned long func,
					   struct pt_regs *regs)
{
	const struct _stpx_uprobe *u = container_of(uc, struct _stpx_uprobe, uc);
	struct _stpx_usave *s;

	if (!_stpx_uprobe_wanted(u))
		return 0;
	/* The return popped the return address: the entry's sp was 8 below. */
	s = _stpx_usave_take(u, user_stack_pointer(regs) - sizeof(unsigned long));

	if (!u->probe->nsaved)
		_stpx_run_probe(u->probe, regs);
	else if (s && s->saved[0])
		_stpx_run_probe_saved(u->probe, regs, s->saved + 1);
	kfree(s);
	return 0;
}
NOKPROBE_SYMBOL(_stpx_uretprobe_handler);

/*
 * How the file open at f differs from the one pass 2 read for u, written
 * into why (size, build ID, the bytes at the probed offset); 0 if it does
 * not.
 */
static int _stpx_uprobe_differs(const struct _stpx_uprobe *u, struct file *f, char *why, size_t size)
{
	unsigned char now[64] = {};
	loff_t pos;

	if (i_size_read(file_inode(f)) != u->size)
		return snprintf(why, size, "size %lld, was %lld", (long long)i_size_read(file_inode(f)),
				(long long)u->size);
	pos = u->build_id_offset;
	if (u->build_id && u->build_id_len <= (int)sizeof(now) &&
	    (kernel_read(f, now, u->build_id_len, &pos) != u->build_id_len ||
	     memcmp(now, u->build_id, u->build_id_len)))
		return snprintf(why, size, "build ID %*phN, was %*phN", u->build_id_len, now, u->build_id_len,
				u->build_id);
	pos = u->offset;
	if (kernel_read(f, now, sizeof(u->code), &pos) != sizeof(u->code) || memcmp(now, u->code, sizeof(u->code)))
		return snprintf(why, size, "other code at offset %#llx", (unsigned long long)u->offset);
	return 0;
}

/*
 * The regular file at u->path, held (igrab) in u->inode, if it is the one
 * pass 2 read (_stpx_uprobe_differs). Else an error report naming the
 * file, and an errno. A file this system does not have leaves the probe
 * unarmed, with a warning, and is no error: no process can run it (as
 * with stap, whose probes on a path wait for a process that maps it).
 */
static int _stpx_uprobe_open(struct _stpx_uprobe *u)
{
	char why[160];
	struct file *f;
	int rc = 0;

	f = filp_open(u->path, O_RDONLY | O_LARGEFILE, 0);
	if (IS_ERR(f) && PTR_ERR(f) == -ENOENT) {
		_stpx_report(STPX_MSG_WARNING, "WARNING: probe %s: no %s here: not armed", u->probe->pp, u->path);
		return 0;
	}
	if (IS_ERR(f)) {
		rc = PTR_ERR(f);
		_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s: cannot open %s (rc %d)", u->probe->pp, u->path, rc);
		return rc;
	}
	if (!S_ISREG(file_inode(f)->i_mode)) {
		rc = -EINVAL;
		_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s: %s is not a regular file", u->probe->pp, u->path);
		goto out;
	}
	if (_stpx_uprobe_differs(u, f, why, sizeof(why))) {
		rc = -ESTALE;
		_stpx_report(STPX_MSG_ERROR,
			     "ERROR: probe %s: %s is not the file the script was translated against (%s); "
			     "translate it again",
			     u->probe->pp, u->path, why);
		goto out;
	}
	u->inode = igrab(file_inode(f));
	if (!u->inode)
		rc = -ENOENT;
out:
	filp_close(f, NULL);
	if (rc || !u->exe)
		return rc;
	/* The program whose processes the probe is for. */
	f = filp_open(u->exe, O_RDONLY | O_LARGEFILE, 0);
	if (IS_ERR(f) && PTR_ERR(f) == -ENOENT) {
		_stpx_report(STPX_MSG_WARNING, "WARNING: probe %s: no %s here: not armed", u->probe->pp, u->exe);
		iput(u->inode);
		u->inode = NULL;
		return 0;
	}
	if (IS_ERR(f)) {
		rc = PTR_ERR(f);
		_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s: cannot open %s (rc %d)", u->probe->pp, u->exe, rc);
		return rc;
	}
	u->exe_inode = igrab(file_inode(f));
	filp_close(f, NULL);
	return u->exe_inode ? 0 : -ENOENT;
}

/*
 * The kernel's uprobe registration, in either of its forms
 * (runtime-c/autoconf/uprobe_register_handle.c): 0 or an errno.
 */
static int _stpx_uprobe_register(struct _stpx_uprobe *u)
{
#ifdef STPX_HAVE_UPROBE_REGISTER_HANDLE
	struct uprobe *h = uprobe_register(u->inode, u->offset, u->ref_ctr_offset, &u->uc);

	if (IS_ERR(h))
		return PTR_ERR(h);
	u->handle = h;
	return 0;
#else
	return u->ref_ctr_offset ? uprobe_register_refctr(u->inode, u->offset, u->ref_ctr_offset, &u->uc) :
				   uprobe_register(u->inode, u->offset, &u->uc);
#endif
}

/* Unregisters u; its handlers may still run until _stpx_uprobes_synced(). */
static void _stpx_uprobe_unregister(struct _stpx_uprobe *u)
{
#ifdef STPX_HAVE_UPROBE_REGISTER_HANDLE
	uprobe_unregister_nosync(u->handle, &u->uc);
	u->handle = NULL;
#else
	uprobe_unregister(u->inode, u->offset, &u->uc);
#endif
}

/* After it, no handler of the uprobes unregistered before runs. */
static void _stpx_uprobes_synced(void)
{
#ifdef STPX_HAVE_UPROBE_REGISTER_HANDLE
	uprobe_unregister_sync();
#endif
}

static void _stpx_uprobes_disarm(struct _stpx_uprobe *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].registered)
			_stpx_uprobe_unregister(&t[i]);
	_stpx_uprobes_synced();
	for (i = 0; i < n; i++) {
		t[i].registered = 0;
		if (t[i].inode)
			iput(t[i].inode);
		t[i].inode = NULL;
		if (t[i].exe_inode)
			iput(t[i].exe_inode);
		t[i].exe_inode = NULL;
	}
	/* No handler of these runs now: their values still waiting go. */
	{
		struct _stpx_usave *s;
		struct hlist_node *tmp;
		HLIST_HEAD(dropped);	/* freed after the (raw) lock */
		unsigned long flags;
		int b;

		raw_spin_lock_irqsave(&_stpx_usave_lock, flags);
		hash_for_each_safe(_stpx_usaves, b, tmp, s, node) {
			if ((const struct _stpx_uprobe *)s->u < t || (const struct _stpx_uprobe *)s->u >= t + n)
				continue;
			hash_del(&s->node);
			atomic_dec(&_stpx_nusaves);
			hlist_add_head(&s->node, &dropped);
		}
		raw_spin_unlock_irqrestore(&_stpx_usave_lock, flags);
		hlist_for_each_entry_safe(s, tmp, &dropped, node)
			kfree(s);
	}
}

static int _stpx_uprobes_arm(struct _stpx_uprobe *t, size_t n)
{
	size_t i;
	int rc;

	/* Every file is checked before any probe is armed. */
	for (i = 0; i < n; i++) {
		rc = _stpx_uprobe_open(&t[i]);
		if (rc) {
			_stpx_uprobes_disarm(t, n);
			return rc;
		}
	}
	for (i = 0; i < n; i++) {
		if (!t[i].inode)
			continue;	/* its file is not here */
		if (t[i].is_return) {
			t[i].uc.ret_handler = _stpx_uretprobe_handler;
			t[i].uc.handler = _stpx_uretprobe_entry;
		} else {
			t[i].uc.handler = t[i].entry;
		}
		if (t[i].exe_inode)
			t[i].uc.filter = _stpx_uprobe_filter;
		/* The kernel counts a semaphore up in each process while armed. */
		rc = _stpx_uprobe_register(&t[i]);
		if (rc) {
			_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s registration error (rc %d)", t[i].probe->pp, rc);
			_stpx_uprobes_disarm(t, n);
			return rc;
		}
		t[i].registered = 1;
	}
	return 0;
}
