/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobe.function("sym") and kprobe.function("sym").return. The generated
 * module holds a table of struct _stpx_kprobe; arm registers each entry,
 * disarm unregisters what was registered and reports missed kretprobe
 * instances.
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
	int rc;

	for (i = 0; i < n; i++) {
		memset(&t[i].u, 0, sizeof(t[i].u));
		if (t[i].is_return) {
			t[i].u.krp.kp.symbol_name = t[i].symbol;
			t[i].u.krp.kp.offset = t[i].offset;
			t[i].u.krp.handler = _stpx_kretprobe_handler;
			if (t[i].probe->nsaved) {
				t[i].u.krp.entry_handler = _stpx_kretprobe_entry;
				t[i].u.krp.data_size = t[i].probe->entry_size;
			}
			/* 0: the kernel sizes instances for the number of CPUs. */
			t[i].u.krp.maxactive = t[i].maxactive;
			rc = register_kretprobe(&t[i].u.krp);
		} else {
			t[i].u.kp.symbol_name = t[i].symbol;
			t[i].u.kp.offset = t[i].offset;
			t[i].u.kp.pre_handler = t[i].pre ? t[i].pre : _stpx_kprobe_pre;
			rc = register_kprobe(&t[i].u.kp);
		}
		if (rc) {
			/* "module:symbol" names nothing while the module is not loaded. */
			if (rc == -ENOENT && strchr(t[i].symbol, ':'))
				_stpx_report(STPX_MSG_ERROR,
					     "ERROR: probe %s registration error (rc %d): no symbol %s; is module %.*s loaded?",
					     t[i].probe->pp, rc, t[i].symbol,
					     (int)(strchr(t[i].symbol, ':') - t[i].symbol), t[i].symbol);
			else if (rc == -E2BIG && t[i].is_return)
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
	return 0;
}
