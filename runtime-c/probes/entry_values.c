/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry values: a variable whose DWARF location is DW_OP_entry_value(regN)
 * (its value is what register N held when the function was entered, the
 * register having been reused since) read by a probe inside the function.
 *
 * A tracker is a kretprobe on the function's entry whose entry handler
 * copies the entry registers into its instance's data. The kernel keeps
 * each task's live kretprobe instances on a per-task list (pushed at entry,
 * popped at return), each with the address of the call's return address
 * (its frame). A probe inside the function finds the instance of the call
 * it runs in: the tracker's instance whose frame is the probe's CFA minus
 * the return address (x86-64: CFA = frame + 8), so a recursive call or an
 * older call finishes nothing wrong. No instance (the call began before
 * the tracker was armed, or the kernel had no free instance and counted a
 * miss) is a script error, never a guess.
 */

/* Calls of one function being tracked at once (all tasks); more are missed. */
#ifndef STPX_ENTRY_MAXACTIVE
#define STPX_ENTRY_MAXACTIVE 128
#endif
/* Bounds the walk of a task's list of live kretprobe instances. */
#define STPX_ENTRY_MAX_WALK 512

#if !defined(CONFIG_KRETPROBE_ON_RETHOOK) && LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#error "stapx: reading entry values (DW_OP_entry_value) needs the per-task kretprobe instance list of Linux 5.11 or later"
#endif

struct _stpx_entry_tracker {
	const char *symbol;
	unsigned long offset;	/* of the function's entry from symbol */
	int registered;
	struct kretprobe krp;
};

static notrace int _stpx_entry_tracker_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	memcpy(ri->data, regs, sizeof(*regs));
	return 0;
}
NOKPROBE_SYMBOL(_stpx_entry_tracker_entry);

static notrace int _stpx_entry_tracker_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}
NOKPROBE_SYMBOL(_stpx_entry_tracker_return);

/*
 * The registers at the entry of the call of c->probe's function whose CFA
 * is cfa, on the current task; NULL if that call was not recorded.
 */
static notrace const struct pt_regs *_stpx_entry_regs(const struct _stpx_context *c, unsigned long cfa)
{
	const struct _stpx_entry_tracker *t = c->probe ? c->probe->entry_tracker : NULL;
	unsigned long frame = cfa - sizeof(unsigned long);
	struct llist_node *n;
	int walked = 0;

	if (unlikely(!t || !t->registered))
		return NULL;
	/*
	 * Only this task pushes and pops its list, and an interrupt that
	 * probes a function pops what it pushed before we go on: the nodes
	 * past the first are stable while we read them.
	 */
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	for (n = READ_ONCE(current->rethooks.first); n && walked < STPX_ENTRY_MAX_WALK; n = READ_ONCE(n->next), walked++) {
		struct rethook_node *rh = container_of(n, struct rethook_node, llist);

		if (rh->rethook == t->krp.rh && rh->frame == frame)
			return (const struct pt_regs *)container_of(rh, struct kretprobe_instance, node)->data;
	}
#else
	for (n = READ_ONCE(current->kretprobe_instances.first); n && walked < STPX_ENTRY_MAX_WALK;
	     n = READ_ONCE(n->next), walked++) {
		struct kretprobe_instance *ri = container_of(n, struct kretprobe_instance, llist);

		if (ri->rph == t->krp.rph && (unsigned long)ri->fp == frame)
			return (const struct pt_regs *)ri->data;
	}
#endif
	return NULL;
}
NOKPROBE_SYMBOL(_stpx_entry_regs);

static __always_inline uint64_t _stpx_regs_dwreg(const struct pt_regs *r, unsigned int n)
{
	switch (n) {
	case 0: return r->ax;
	case 1: return r->dx;
	case 2: return r->cx;
	case 3: return r->bx;
	case 4: return r->si;
	case 5: return r->di;
	case 6: return r->bp;
	case 7: return r->sp;
	case 8: return r->r8;
	case 9: return r->r9;
	case 10: return r->r10;
	case 11: return r->r11;
	case 12: return r->r12;
	case 13: return r->r13;
	case 14: return r->r14;
	case 15: return r->r15;
	case 16: return r->ip;
	}
	return 0;
}

/* DWARF register n at the entry of the running call (CFA cfa), or a script error. */
#define _STPX_ENTRY_REG(c, n, cfa, loc)                                        \
	({                                                                     \
		const struct pt_regs *_stpx_r = _stpx_entry_regs((c), (unsigned long)(cfa)); \
		if (unlikely(!_stpx_r))                                        \
			STPX_ERROR("a value at the function's entry was not recorded for this call " \
				   "(it began before the probes were armed, or too many calls were active)", \
				   loc);                                       \
		_stpx_regs_dwreg(_stpx_r, (n));                                \
	})

static void _stpx_entry_trackers_disarm(struct _stpx_entry_tracker *t, size_t n)
{
	struct kretprobe **krps = kmalloc_array(n, sizeof(*krps), GFP_KERNEL);
	size_t i, nkrp = 0;

	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		if (krps)
			krps[nkrp++] = &t[i].krp;
		else
			unregister_kretprobe(&t[i].krp);
	}
	if (nkrp)
		unregister_kretprobes(krps, nkrp);
	kfree(krps);
	for (i = 0; i < n; i++) {
		if (t[i].registered && t[i].krp.nmissed) {
			/* Probes that then needed them reported errors. */
			_stpx_report(STPX_MSG_WARNING,
				     "WARNING: Missed %d calls of %s whose entry values were not recorded (maxactive %d)",
				     t[i].krp.nmissed, t[i].symbol, t[i].krp.maxactive);
		}
		t[i].registered = 0;
	}
}

static int _stpx_entry_trackers_arm(struct _stpx_entry_tracker *t, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		memset(&t[i].krp, 0, sizeof(t[i].krp));
		t[i].krp.kp.symbol_name = t[i].symbol;
		t[i].krp.kp.offset = t[i].offset;
		t[i].krp.entry_handler = _stpx_entry_tracker_entry;
		t[i].krp.handler = _stpx_entry_tracker_return;
		t[i].krp.data_size = sizeof(struct pt_regs);
		t[i].krp.maxactive = max_t(int, STPX_ENTRY_MAXACTIVE, 2 * num_possible_cpus());
		rc = register_kretprobe(&t[i].krp);
		if (rc) {
			_stpx_report(STPX_MSG_ERROR,
				     "ERROR: cannot watch the entry of %s for entry values (rc %d)", t[i].symbol, rc);
			return rc;
		}
		t[i].registered = 1;
	}
	return 0;
}
