/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobe.function("sym") and kprobe.function("sym").return. The generated
 * module holds a table of struct _stpx_kprobe; arm registers each entry,
 * disarm unregisters what was registered and reports missed kretprobe
 * instances.
 *
 * A probe in a module ("mod:sym") that is not loaded when the script
 * starts waits for it, as in stap: a module notifier registers it when
 * the module comes (before its init function runs, which can then be
 * probed), and unregisters it when the module goes, to wait again.
 *
 * Entry probes on the kernel's traceable functions are not kprobes: they
 * attach as one batch, an ftrace_ops whose filter holds all of their
 * addresses (see "The ftrace batch" below).
 */
#include <linux/ftrace.h>
#include <linux/sort.h>

struct _stpx_kprobe {
	const struct _stpx_probe *probe;
	/* The entry point generated for the probe's declaration: pre for
	 * its entry probes, post for its .return probes. */
	kprobe_pre_handler_t pre;
	kretprobe_handler_t post;
	const char *symbol;
	unsigned long offset;		/* from the symbol (kernel.function) */
	/* A raw run-time address instead (kprobe.statement(A).absolute), or 0. */
	unsigned long addr;
	int is_return;
	int maxactive;			/* .return.maxactive(N); 0: the kernel's default */
	/* An entry of a vmlinux function the ftrace batch may take (1; 2
	 * when other names share its address), at register_kprobe's
	 * run-time address plus ftrace_rel; the function's size (0:
	 * unknown). */
	int ftrace;
	long long ftrace_rel;
	unsigned long ftrace_size;
	int registered;			/* as a kprobe or kretprobe */
	int ftraced;			/* in the ftrace batch */
	int waiting;			/* for its module ("mod:sym") to be loaded */
	union {
		struct kprobe kp;
		struct kretprobe krp;
	} u;
};

/*
 * A kprobe's handler sees regs->ip just past the breakpoint (int3, or the
 * ftrace call for a probe on a function's entry); handlers that read the
 * context see the probed address there instead, as in stap (print_regs(),
 * register("rip"), the first frame of a backtrace), and the kprobe core
 * gets its own value back afterwards (it single-steps or emulates from it).
 *
 * STPX_KPROBE_PRE(name, proto): a kprobe entry point for the points of one
 * declaration, proto being the first of them in the (const) probe table.
 * Every entry of a generated table names its declaration's entry point, in
 * which the handler, its locks and flags are compile-time constants.
 */
#define STPX_KPROBE_PRE(name, proto)                                          \
	static notrace int name(struct kprobe *kp, struct pt_regs *regs)      \
	{                                                                     \
		unsigned long ip = instruction_pointer(regs);                 \
									      \
		if ((proto)->flags & STPX_PROBE_CONTEXT)                      \
			instruction_pointer_set(regs, (unsigned long)kp->addr); \
		_stpx_probe_hit(proto,                                        \
				container_of(kp, struct _stpx_kprobe, u.kp)->probe, \
				regs, NULL, NULL);                            \
		if ((proto)->flags & STPX_PROBE_CONTEXT)                      \
			instruction_pointer_set(regs, ip);                    \
		return 0;                                                     \
	}                                                                     \
	NOKPROBE_SYMBOL(name)

/*
 * STPX_KRETPROBE_HIT(name, proto): the same for the .return points of one
 * declaration, proto being the first of them; the function returned from
 * is noted for print_backtrace() only where the handler reads the context.
 */
#define STPX_KRETPROBE_HIT(name, proto)                                       \
	static notrace int name(struct kretprobe_instance *ri, struct pt_regs *regs) \
	{                                                                     \
		struct kretprobe *rp = get_kretprobe(ri);                     \
		const struct _stpx_probe *p;                                  \
		int64_t *saved = (int64_t *)ri->data;                         \
		unsigned long func = 0;                                       \
									      \
		if (!rp)                                                      \
			return 0;                                             \
		p = container_of(rp, struct _stpx_kprobe, u.krp)->probe;      \
		if ((proto)->flags & STPX_PROBE_CONTEXT) {                    \
			func = this_cpu_read(_stpx_kretprobe_func);           \
			this_cpu_write(_stpx_kretprobe_func, (unsigned long)rp->kp.addr); \
		}                                                             \
		if (!p->nsaved)                                               \
			_stpx_probe_hit(proto, p, regs, NULL, NULL);          \
		else if (saved[0])                                            \
			_stpx_probe_hit(proto, p, regs, saved + 1, NULL);     \
		if ((proto)->flags & STPX_PROBE_CONTEXT)                      \
			this_cpu_write(_stpx_kretprobe_func, func);           \
		return 0;                                                     \
	}                                                                     \
	NOKPROBE_SYMBOL(name)

/* Runs the probe's entry half; 0 keeps the return half armed. */
static notrace int _stpx_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		_stpx_run_entry(container_of(rp, struct _stpx_kprobe, u.krp)->probe, regs,
				(int64_t *)ri->data);
	return 0;
}
NOKPROBE_SYMBOL(_stpx_kretprobe_entry);

/* The kernel's missed counts join the session's skipped probes, as in
 * stap's summary ("skipped probes: M"); each probe's share is named too. */
static void _stpx_kprobes_report_missed(const struct _stpx_kprobe *k)
{
	if (k->is_return) {
		if (k->u.krp.nmissed) {
			atomic_add(k->u.krp.nmissed, &_stpx_skipped);
			_stpx_report(STPX_MSG_WARNING,
				     "WARNING: Missed %d kretprobe instances of %s (maxactive %d)",
				     k->u.krp.nmissed, k->probe->pp, k->u.krp.maxactive);
		}
	} else if (k->u.kp.nmissed) {
		/* Hits while another kprobe ran on that CPU (nested). */
		atomic_add((int)k->u.kp.nmissed, &_stpx_skipped);
		_stpx_report(STPX_MSG_WARNING, "WARNING: Missed %lu kprobe hits of %s",
			     k->u.kp.nmissed, k->probe->pp);
	}
}

/* The tables with probes in modules, which the module notifier
 * goes through; _stpx_kprobes_lock guards them and each entry's
 * registered and waiting flags while the notifier is on. */
#define STPX_KPROBE_TABLES 8
static struct {
	struct _stpx_kprobe *t;
	size_t n;
} _stpx_kprobe_tables[STPX_KPROBE_TABLES];
static DEFINE_MUTEX(_stpx_kprobes_lock);
static int _stpx_kprobes_notifier_on;

static int _stpx_kprobe_register(struct _stpx_kprobe *k)
{
	memset(&k->u, 0, sizeof(k->u));
	if (k->is_return) {
		k->u.krp.kp.symbol_name = k->symbol;
		k->u.krp.kp.offset = k->offset;
		k->u.krp.handler = k->post;
		if (k->probe->nsaved) {
			k->u.krp.entry_handler = _stpx_kretprobe_entry;
			k->u.krp.data_size = k->probe->entry_size;
		}
		/* 0: the kernel sizes instances for the number of CPUs. */
		k->u.krp.maxactive = k->maxactive;
		return register_kretprobe(&k->u.krp);
	}
	if (k->addr) {
		k->u.kp.addr = (kprobe_opcode_t *)k->addr;
	} else {
		k->u.kp.symbol_name = k->symbol;
		k->u.kp.offset = k->offset;
	}
	k->u.kp.pre_handler = k->pre;
	return register_kprobe(&k->u.kp);
}

/* Whether the entry's "mod:sym" names a symbol of module `name`. */
static bool _stpx_kprobe_in(const struct _stpx_kprobe *k, const char *name)
{
	const char *colon = strchr(k->symbol, ':');

	return colon && strlen(name) == (size_t)(colon - k->symbol) &&
	       !strncmp(k->symbol, name, colon - k->symbol);
}

static int _stpx_kprobes_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;
	size_t i, j;
	int rc;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&_stpx_kprobes_lock);
	for (i = 0; i < STPX_KPROBE_TABLES; i++)
		for (j = 0; j < _stpx_kprobe_tables[i].n; j++) {
			struct _stpx_kprobe *k = &_stpx_kprobe_tables[i].t[j];

			if (!_stpx_kprobe_in(k, mod->name))
				continue;
			if (state == MODULE_STATE_COMING && k->waiting) {
				rc = _stpx_kprobe_register(k);
				if (rc) {
					_stpx_report(STPX_MSG_WARNING,
						     "WARNING: probe %s registration error (rc %d) as module %s loads",
						     k->probe->pp, rc, mod->name);
					continue;
				}
				k->registered = 1;
				k->waiting = 0;
			} else if (state == MODULE_STATE_GOING && k->registered) {
				if (k->is_return)
					unregister_kretprobe(&k->u.krp);
				else
					unregister_kprobe(&k->u.kp);
				_stpx_kprobes_report_missed(k);
				k->registered = 0;
				k->waiting = 1;
			}
		}
	mutex_unlock(&_stpx_kprobes_lock);
	return NOTIFY_DONE;
}

static struct notifier_block _stpx_kprobes_module_nb = {
	.notifier_call = _stpx_kprobes_module_event,
};

/*
 * The ftrace batch. Registering a kprobe on a function's entry costs the
 * kernel a lookup of the name (a walk of all its symbols before 6.2) and
 * an update of ftrace's code for that one address: about 11 ms of guest
 * time each on 6.1, 11 s for a thousand probes. The batch resolves every
 * address at once from the translator's table (each one's offset from
 * register_kprobe, so that KASLR's shift comes with the reference),
 * checks each against the kernel's own symbol for it, sets them all as
 * one ftrace_ops's filter and registers that once: one code update for
 * the whole table.
 *
 * Each hit then comes through _stpx_ftrace_hit() with the registers
 * ftrace saved (FTRACE_OPS_FL_SAVE_REGS, as kprobes on ftrace have), finds
 * its probes by address and runs their entry points as a kprobe would,
 * with kp->addr the probed address. ftrace's recursion lock stands for the
 * kprobe core's "another kprobe is running": a hit inside a handler is
 * counted missed.
 *
 * What the batch cannot take stays a kprobe: an address that is not the
 * symbol named (another kernel build), one ftrace refuses (found by
 * halving), and everything where the kernel lacks what the batch needs
 * (runtime-c/autoconf/ftrace_filter_ips.c) or the module is built with
 * -D STPX_KPROBES_ONLY.
 */
#if defined(STPX_HAVE_FTRACE_FILTER_IPS) && !defined(STPX_KPROBES_ONLY)

struct _stpx_ftrace_batch {
	struct ftrace_ops ops;
	const struct _stpx_kprobe *table;	/* whose entries these are */
	size_t n;
	unsigned long *addr;			/* sorted */
	struct _stpx_kprobe **k;		/* k[i] probes addr[i] */
};
static struct _stpx_ftrace_batch *_stpx_ftrace_batches[STPX_KPROBE_TABLES];

static notrace void _stpx_ftrace_hit(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct _stpx_ftrace_batch *b = container_of(op, struct _stpx_ftrace_batch, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	size_t lo = 0, hi = b->n, i;
	int bit;

	/* The last entry at or below ip is the function's: ftrace's call
	 * is its first instruction, or the one after an endbr64. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->addr[mid] <= ip)
			lo = mid;
		else
			hi = mid;
	}
	if (unlikely(!regs || b->addr[lo] > ip))
		return;
	/* Probes on one function follow each other, in table order. */
	for (i = lo; i > 0 && b->addr[i - 1] == b->addr[lo]; i--)
		;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0)) {
		for (; i <= lo; i++)
			b->k[i]->u.kp.nmissed++;
		return;
	}
	for (; i <= lo; i++) {
		struct _stpx_kprobe *k = b->k[i];

		if (unlikely(k->u.kp.addr != (kprobe_opcode_t *)ip))
			WRITE_ONCE(k->u.kp.addr, (kprobe_opcode_t *)ip);
		k->pre(&k->u.kp, regs);
	}
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(_stpx_ftrace_hit);

struct _stpx_ftrace_entry {
	unsigned long addr;
	struct _stpx_kprobe *k;
};

static int _stpx_ftrace_cmp(const void *a, const void *b)
{
	const struct _stpx_ftrace_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* Whether the kernel's symbol for the entry's address is the one the
 * table was made from: its name at offset 0; where names share the
 * address (the kernel shows one of them), a symbol at offset 0 whose size
 * is the function's (kallsyms counts the padding up to the next symbol
 * too). */
static bool _stpx_ftrace_check(const struct _stpx_kprobe *k, unsigned long addr, char *buf)
{
	size_t len = strlen(k->symbol);
	unsigned long size;
	char *at;

	sprint_symbol(buf, addr);
	if (!strncmp(buf, k->symbol, len) && !strncmp(buf + len, "+0x0/", 5))
		return true;
	at = strstr(buf, "+0x0/");
	if (!at || k->ftrace != 2 || !k->ftrace_size || kstrtoul(at + 5, 0, &size))
		return false;
	return size >= k->ftrace_size && size - k->ftrace_size < 256;
}

/* Adds ips[lo, hi) to the filter; those ftrace refuses (no ftrace call
 * there) are found by halving and set to 0. */
static void _stpx_ftrace_filter(struct ftrace_ops *ops, unsigned long *ips, size_t lo, size_t hi)
{
	if (lo == hi || !ftrace_set_filter_ips(ops, ips + lo, hi - lo, 0, 0))
		return;
	if (hi - lo == 1) {
		ips[lo] = 0;
		return;
	}
	_stpx_ftrace_filter(ops, ips, lo, lo + (hi - lo) / 2);
	_stpx_ftrace_filter(ops, ips, lo + (hi - lo) / 2, hi);
}

/* Takes what it can of the table into one batch (ftraced); the rest is
 * left to kprobes. */
static void _stpx_ftrace_arm(struct _stpx_kprobe *t, size_t n)
{
	unsigned long base = (unsigned long)&register_kprobe;
	struct _stpx_ftrace_batch *b = NULL;
	struct _stpx_ftrace_entry *e = NULL;
	unsigned long *ips = NULL;
	char *buf = NULL;
	size_t i, j, m = 0, slot, nips = 0;

	for (slot = 0; slot < STPX_KPROBE_TABLES && _stpx_ftrace_batches[slot]; slot++)
		;
	for (i = 0; i < n; i++)
		m += t[i].ftrace && !t[i].is_return;
	if (!m || slot == STPX_KPROBE_TABLES)
		return;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	e = kvmalloc_array(m, sizeof(*e), GFP_KERNEL);
	ips = kvmalloc_array(m, sizeof(*ips), GFP_KERNEL);
	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!b || !e || !ips || !buf)
		goto out;
	b->addr = kvmalloc_array(m, sizeof(*b->addr), GFP_KERNEL);
	b->k = kvmalloc_array(m, sizeof(*b->k), GFP_KERNEL);
	if (!b->addr || !b->k)
		goto out;
	for (i = 0, m = 0; i < n; i++) {
		unsigned long addr = base + (unsigned long)t[i].ftrace_rel;

		if (!t[i].ftrace || t[i].is_return || !_stpx_ftrace_check(&t[i], addr, buf))
			continue;
		e[m].addr = addr;
		e[m++].k = &t[i];
	}
#ifdef STPX_FTRACE_TEST_REFUSE
	/* For the tests: one function's address moved past its ftrace call
	 * (which ftrace takes anywhere in its 5 bytes, after an endbr64 or
	 * not), so that ftrace refuses it as it would a function it cannot
	 * trace. */
	for (i = 0; i < m; i++)
		if (!strcmp(e[i].k->symbol, __stringify(STPX_FTRACE_TEST_REFUSE)))
			e[i].addr += 16;
#endif
	sort(e, m, sizeof(*e), _stpx_ftrace_cmp, NULL);
	for (i = 0; i < m; i++)
		if (!nips || ips[nips - 1] != e[i].addr)
			ips[nips++] = e[i].addr;
	b->ops.func = _stpx_ftrace_hit;
	b->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	_stpx_ftrace_filter(&b->ops, ips, 0, nips);
	/* The entries at the addresses ftrace took. */
	for (i = 0, j = 0; i < m; i++) {
		while (j < nips && (!ips[j] || ips[j] < e[i].addr))
			j++;
		if (j == nips || ips[j] != e[i].addr)
			continue;
		b->addr[b->n] = e[i].addr;
		b->k[b->n++] = e[i].k;
	}
	/* Ready before the first hit. */
	for (i = 0; i < b->n; i++) {
		struct _stpx_kprobe *k = b->k[i];

		memset(&k->u, 0, sizeof(k->u));
		k->u.kp.addr = (kprobe_opcode_t *)b->addr[i];
	}
	if (!b->n || register_ftrace_function(&b->ops)) {
		ftrace_free_filter(&b->ops);
		goto out;
	}
	for (i = 0; i < b->n; i++)
		b->k[i]->ftraced = 1;
	b->table = t;
	_stpx_ftrace_batches[slot] = b;
	b = NULL;
out:
	if (b) {
		kvfree(b->addr);
		kvfree(b->k);
		kfree(b);
	}
	kvfree(e);
	kvfree(ips);
	kfree(buf);
}

static void _stpx_ftrace_disarm(struct _stpx_kprobe *t)
{
	struct _stpx_ftrace_batch *b;
	size_t slot, i;

	for (slot = 0; slot < STPX_KPROBE_TABLES; slot++)
		if (_stpx_ftrace_batches[slot] && _stpx_ftrace_batches[slot]->table == t)
			break;
	if (slot == STPX_KPROBE_TABLES)
		return;
	b = _stpx_ftrace_batches[slot];
	_stpx_ftrace_batches[slot] = NULL;
	/* (Returns once no CPU runs _stpx_ftrace_hit() for it.) */
	unregister_ftrace_function(&b->ops);
	ftrace_free_filter(&b->ops);
	for (i = 0; i < b->n; i++) {
		_stpx_kprobes_report_missed(b->k[i]);
		b->k[i]->ftraced = 0;
	}
	kvfree(b->addr);
	kvfree(b->k);
	kfree(b);
}

#else

static void _stpx_ftrace_arm(struct _stpx_kprobe *t, size_t n)
{
}

static void _stpx_ftrace_disarm(struct _stpx_kprobe *t)
{
}

#endif

/*
 * Unregisters in two batches (kprobes, then kretprobes): each batch waits
 * for one RCU grace period, where unregistering one by one waits once per
 * probe (seconds for a thousand). One by one only if the pointer arrays
 * cannot be allocated.
 */
static void _stpx_kprobes_disarm(struct _stpx_kprobe *t, size_t n)
{
	struct kprobe **kps = kmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	struct kretprobe **krps = kmalloc_array(n, sizeof(*krps), GFP_KERNEL);
	size_t i, nkp = 0, nkrp = 0;
	bool last = false;

	/* The notifier cannot register this table's entries any more. */
	mutex_lock(&_stpx_kprobes_lock);
	for (i = 0; i < STPX_KPROBE_TABLES; i++)
		if (_stpx_kprobe_tables[i].t == t) {
			_stpx_kprobe_tables[i].t = NULL;
			_stpx_kprobe_tables[i].n = 0;
		}
	for (i = 0; i < STPX_KPROBE_TABLES && !_stpx_kprobe_tables[i].n; i++)
		;
	if (i == STPX_KPROBE_TABLES && _stpx_kprobes_notifier_on) {
		_stpx_kprobes_notifier_on = 0;
		last = true;
	}
	for (i = 0; i < n; i++)
		t[i].waiting = 0;
	mutex_unlock(&_stpx_kprobes_lock);
	/* (Outside the lock: a running callback may be waiting for it.) */
	if (last)
		unregister_module_notifier(&_stpx_kprobes_module_nb);
	_stpx_ftrace_disarm(t);

	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		if (!kps || !krps) {
			if (t[i].is_return)
				unregister_kretprobe(&t[i].u.krp);
			else
				unregister_kprobe(&t[i].u.kp);
		} else if (t[i].is_return) {
			krps[nkrp++] = &t[i].u.krp;
		} else {
			kps[nkp++] = &t[i].u.kp;
		}
	}
	if (nkp)
		unregister_kprobes(kps, nkp);
	if (nkrp)
		unregister_kretprobes(krps, nkrp);
	kfree(kps);
	kfree(krps);
	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		_stpx_kprobes_report_missed(&t[i]);
		t[i].registered = 0;
	}
}

static int _stpx_kprobes_arm(struct _stpx_kprobe *t, size_t n)
{
	size_t i;
	int rc, in_modules = 0;

	_stpx_ftrace_arm(t, n);
	for (i = 0; i < n; i++) {
		if (t[i].ftraced)
			continue;
		in_modules += strchr(t[i].symbol, ':') != NULL;
		rc = _stpx_kprobe_register(&t[i]);
		/* "module:symbol" names nothing while the module is not
		 * loaded (pass 2 found the symbol in its debug information):
		 * the probe waits for it. */
		if (rc == -ENOENT && strchr(t[i].symbol, ':')) {
			t[i].waiting = 1;
			continue;
		}
		if (rc) {
			if (rc == -E2BIG && t[i].is_return)
				_stpx_report(STPX_MSG_ERROR,
					     "ERROR: probe %s registration error (rc %d): the values it saves at entry need %zu bytes per call, more than the kernel allows",
					     t[i].probe->pp, rc, t[i].probe->entry_size);
			else
				_stpx_report(STPX_MSG_ERROR,
					     "ERROR: probe %s registration error (rc %d)", t[i].probe->pp, rc);
			return rc;
		}
		t[i].registered = 1;
	}
	if (!in_modules)
		return 0;
	/* A table with probes in modules follows their loads and unloads. */
	mutex_lock(&_stpx_kprobes_lock);
	for (i = 0; i < STPX_KPROBE_TABLES && _stpx_kprobe_tables[i].n; i++)
		;
	if (i == STPX_KPROBE_TABLES) {
		mutex_unlock(&_stpx_kprobes_lock);
		_stpx_report(STPX_MSG_ERROR, "ERROR: too many tables of probes in modules");
		return -ENOSPC;
	}
	_stpx_kprobe_tables[i].t = t;
	_stpx_kprobe_tables[i].n = n;
	rc = 0;
	if (!_stpx_kprobes_notifier_on) {
		rc = register_module_notifier(&_stpx_kprobes_module_nb);
		_stpx_kprobes_notifier_on = rc == 0;
	}
	/* A module that came between the first try and the notifier. */
	for (i = 0; !rc && i < n; i++)
		if (t[i].waiting && !_stpx_kprobe_register(&t[i])) {
			t[i].waiting = 0;
			t[i].registered = 1;
		}
	mutex_unlock(&_stpx_kprobes_lock);
	return rc;
}
