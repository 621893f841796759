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
 */

struct _stpx_kprobe {
	const struct _stpx_probe *probe;
	/* The entry point generated for the probe's declaration, or NULL. */
	kprobe_pre_handler_t pre;
	const char *symbol;
	unsigned long offset;		/* from the symbol (kernel.function) */
	int is_return;
	int maxactive;			/* .return.maxactive(N); 0: the kernel's default */
	int registered;
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
 * Generic kprobe entry. A generated module defines one entry point per
 * probe declaration instead (STPX_KPROBE_PRE), in which the handler, its
 * locks and flags are compile-time constants.
 */
static notrace int _stpx_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct _stpx_kprobe *k = container_of(kp, struct _stpx_kprobe, u.kp);
	unsigned long ip = instruction_pointer(regs);

	if (k->probe->flags & STPX_PROBE_CONTEXT)
		instruction_pointer_set(regs, (unsigned long)kp->addr);
	_stpx_run_probe(k->probe, regs);
	if (k->probe->flags & STPX_PROBE_CONTEXT)
		instruction_pointer_set(regs, ip);
	return 0;
}
NOKPROBE_SYMBOL(_stpx_kprobe_pre);

/*
 * STPX_KPROBE_PRE(name, proto): a kprobe entry point for the points of one
 * declaration, proto being the first of them in the (const) probe table.
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

static notrace int _stpx_kretprobe_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct _stpx_kprobe *k;
	int64_t *saved = (int64_t *)ri->data;
	unsigned long func;

	if (!rp)
		return 0;
	k = container_of(rp, struct _stpx_kprobe, u.krp);
	/* Saved and restored: a kretprobe hit nested in this one (NMI) sets its own. */
	func = this_cpu_read(_stpx_kretprobe_func);
	this_cpu_write(_stpx_kretprobe_func, (unsigned long)rp->kp.addr);
	if (!k->probe->nsaved)
		_stpx_run_probe(k->probe, regs);
	else if (saved[0])	/* the entry half saved its values */
		_stpx_run_probe_saved(k->probe, regs, saved + 1);
	this_cpu_write(_stpx_kretprobe_func, func);
	return 0;
}
NOKPROBE_SYMBOL(_stpx_kretprobe_handler);

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
		k->u.krp.handler = _stpx_kretprobe_handler;
		if (k->probe->nsaved) {
			k->u.krp.entry_handler = _stpx_kretprobe_entry;
			k->u.krp.data_size = k->probe->entry_size;
		}
		/* 0: the kernel sizes instances for the number of CPUs. */
		k->u.krp.maxactive = k->maxactive;
		return register_kretprobe(&k->u.krp);
	}
	k->u.kp.symbol_name = k->symbol;
	k->u.kp.offset = k->offset;
	k->u.kp.pre_handler = k->pre ? k->pre : _stpx_kprobe_pre;
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

	for (i = 0; i < n; i++) {
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
