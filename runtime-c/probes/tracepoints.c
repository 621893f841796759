/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.trace("name"): a probe function on a kernel tracepoint. The
 * generated module holds a table of struct _stpx_tracepoint, each with a
 * generated function of the tracepoint's prototype that puts the arguments
 * where a function's arguments are at its entry (a pt_regs: rsi, rdx, rcx,
 * r8, r9, then the stack), so $arg reads work as for kernel.function.
 * Tracepoints are found by name with for_each_kernel_tracepoint().
 */
#include <linux/tracepoint.h>

struct _stpx_tracepoint {
	const struct _stpx_probe *probe;
	const char *name;
	void *func;
	struct tracepoint *tp;
};

struct _stpx_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void _stpx_tp_match(struct tracepoint *tp, void *priv)
{
	struct _stpx_tp_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

/* Hooks func (with data) onto the kernel's tracepoint `name`, for the
 * runtime's own hooks (process events, perf counters): the tracepoint, or
 * an ERR_PTR after saying why, for `who` ("process probes"). */
static struct tracepoint *_stpx_tp_hook(const char *name, void *func, void *data, const char *who)
{
	struct _stpx_tp_lookup l = { .name = name };
	int rc;

	for_each_kernel_tracepoint(_stpx_tp_match, &l);
	if (!l.tp) {
		_stpx_report(STPX_MSG_ERROR, "ERROR: %s: no tracepoint %s", who, name);
		return ERR_PTR(-ENOENT);
	}
	rc = tracepoint_probe_register(l.tp, func, data);
	return rc ? ERR_PTR(rc) : l.tp;
}

/* Undoes _stpx_tp_hook (with data NULL) if *tp is hooked; whether it was.
 * The caller then waits for running hooks (tracepoint_synchronize_unregister). */
static bool _stpx_tp_unhook(struct tracepoint **tp, void *func)
{
	if (!*tp)
		return false;
	tracepoint_probe_unregister(*tp, func, NULL);
	*tp = NULL;
	return true;
}

static void _stpx_tracepoints_disarm(struct _stpx_tracepoint *t, size_t n)
{
	size_t i;
	bool any = false;

	for (i = 0; i < n; i++) {
		if (!t[i].tp)
			continue;
		tracepoint_probe_unregister(t[i].tp, t[i].func, &t[i]);
		t[i].tp = NULL;
		any = true;
	}
	/* No probe function may still be running when the module goes. */
	if (any)
		tracepoint_synchronize_unregister();
}

static int _stpx_tracepoints_arm(struct _stpx_tracepoint *t, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		struct _stpx_tp_lookup l = { .name = t[i].name };

		for_each_kernel_tracepoint(_stpx_tp_match, &l);
		if (!l.tp) {
			_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s registration error (no tracepoint %s)",
				     t[i].probe->pp, t[i].name);
			return -ENOENT;
		}
		rc = tracepoint_probe_register(l.tp, t[i].func, &t[i]);
		if (rc) {
			_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s registration error (rc %d)",
				     t[i].probe->pp, rc);
			return rc;
		}
		t[i].tp = l.tp;
	}
	return 0;
}

/* The arguments, as they would be at a function's entry. */
static __always_inline void _stpx_tp_regs(struct pt_regs *regs, unsigned long *stack,
					  const unsigned long *args, unsigned int n)
{
	unsigned int i;

	memset(regs, 0, sizeof(*regs));
	if (n > 0) regs->si = args[0];
	if (n > 1) regs->dx = args[1];
	if (n > 2) regs->cx = args[2];
	if (n > 3) regs->r8 = args[3];
	if (n > 4) regs->r9 = args[4];
	/* At entry the return address is at sp, stack arguments above it. */
	for (i = 5; i < n; i++)
		stack[1 + i - 5] = args[i];
	regs->sp = (unsigned long)stack;
}
