/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Session state and the common probe entry. The state moves
 *   IDLE -> STARTING (begin probes) -> RUNNING -> STOPPING (end probes)
 *   -> STOPPED
 * and exit() (or too many errors) moves STARTING/RUNNING to STOPPING and
 * tells the daemon, which then asks the module to stop. A probe runs only
 * in its own state (begin: STARTING, end: STOPPING, others: RUNNING), so
 * nothing but end probes runs once exit() was called.
 */
#ifndef _STPX_SESSION_H_
#define _STPX_SESSION_H_

enum {
	STPX_STATE_IDLE,
	STPX_STATE_STARTING,
	STPX_STATE_RUNNING,
	STPX_STATE_STOPPING,
	STPX_STATE_STOPPED,
};

struct _stpx_probe {
	void (*handler)(struct _stpx_context *c);
	const char *pp;				/* probe point, as written */
	const char *pn;				/* the alias point the script named */
	const char *ppfunc;			/* its function("NAME"), or "" */
	const char *func;			/* the symbol probed, or "" */
	const struct _stpx_lock_req *locks;	/* in canonical order */
	unsigned int nlocks;
	int state;				/* STPX_STATE_* it runs in */
	int interruptible;			/* begin/end: interrupts stay on */
	int is_return;				/* a .return probe */
	/* .return probes: what to save at function entry, and how much. */
	void (*entry)(struct _stpx_context *c, int64_t *saved);
	unsigned int nsaved;
};

static atomic_t _stpx_state = ATOMIC_INIT(STPX_STATE_IDLE);
static atomic_t _stpx_errors = ATOMIC_INIT(0);
static atomic_t _stpx_skipped = ATOMIC_INIT(0);
/* The target process (stap's -c CMD or -x PID), for target(); else 0. */
static long _stpx_target;
/*
 * Set when errors (past MAXERRORS, or too many skipped probes) end the
 * session: then "error" probes run instead of "end" probes. Errors that
 * try/catch caught or --suppress-handler-errors counted do not end it.
 */
static atomic_t _stpx_error_exit = ATOMIC_INIT(0);

/* exit(): stop running probes and ask the daemon to stop the session. */
static void _stpx_request_exit(void)
{
	int s = atomic_read(&_stpx_state);

	while (s == STPX_STATE_STARTING || s == STPX_STATE_RUNNING) {
		if (atomic_try_cmpxchg(&_stpx_state, &s, STPX_STATE_STOPPING)) {
			_stpx_ctl_send(STPX_MSG_EXIT, "");
			return;
		}
	}
}

static void _stpx_report(char type, const char *fmt, ...)
{
	char msg[STPX_MSG_MAX - 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	_stpx_ctl_send(type, msg);
}

static void _stpx_report_error(struct _stpx_context *c)
{
#ifdef STPX_SUPPRESS_HANDLER_ERRORS
	/* As if every handler were wrapped in try { } catch { next }. */
	atomic_inc(&_stpx_errors);
	return;
#endif
	if (c->last_loc)
		_stpx_report(STPX_MSG_ERROR, "ERROR: %s near %s", c->last_error, c->last_loc);
	else
		_stpx_report(STPX_MSG_ERROR, "ERROR: %s", c->last_error);
	if (atomic_inc_return(&_stpx_errors) > MAXERRORS) {
		atomic_set(&_stpx_error_exit, 1);
		_stpx_request_exit();
	}
}

static void _stpx_count_skip(void)
{
	if (atomic_inc_return(&_stpx_skipped) == MAXSKIPPED + 1 &&
	    !IS_ENABLED(STPX_SUPPRESS_HANDLER_ERRORS)) {
		_stpx_report(STPX_MSG_ERROR,
			     "ERROR: Skipped too many probes, check MAXSKIPPED or MAXTRYLOCK.");
		atomic_inc(&_stpx_errors);
		atomic_set(&_stpx_error_exit, 1);
		_stpx_request_exit();
	}
}

/*
 * This CPU's context, made ready for p's handler (interrupts or preemption
 * already off); NULL, with the hit counted as skipped, if a handler already
 * runs on it. The caller drops c->busy when done.
 */
static __always_inline struct _stpx_context *_stpx_ctx_claim(const struct _stpx_probe *p,
							     struct pt_regs *regs, int64_t *saved)
{
	struct _stpx_context *c = this_cpu_read(_stpx_ctx);

	if (atomic_inc_return(&c->busy) != 1) {
		atomic_dec(&c->busy);
		_stpx_count_skip();
		return NULL;
	}
	c->probe = p;
	c->regs = regs;
	c->entry_saved = saved;
	c->last_error = NULL;
	c->last_loc = NULL;
	c->nesting = 0;
	c->actioncount = 0;
	c->maxaction = p->interruptible ? MAXACTION_INTERRUPTIBLE : MAXACTION;
	return c;
}

static notrace void _stpx_run_probe_saved(const struct _stpx_probe *p, struct pt_regs *regs,
					  int64_t *saved);

static notrace void _stpx_run_probe(const struct _stpx_probe *p, struct pt_regs *regs)
{
	_stpx_run_probe_saved(p, regs, NULL);
}
NOKPROBE_SYMBOL(_stpx_run_probe);

/*
 * A .return probe's entry half: evaluate what the return half will read
 * (parameters, @entry) on the entry registers into saved[1..]; saved[0]
 * says whether that worked. Reads only registers and memory: no locks.
 */
static notrace void _stpx_run_entry(const struct _stpx_probe *p, struct pt_regs *regs, int64_t *saved)
{
	struct _stpx_context *c;
	unsigned long flags;

	saved[0] = 0;
	if (atomic_read(&_stpx_state) != p->state)
		return;
	local_irq_save(flags);
	c = _stpx_ctx_claim(p, regs, NULL);
	if (c) {
		p->entry(c, saved + 1);
		if (unlikely(c->last_error))
			_stpx_report_error(c);
		else
			saved[0] = 1;
		atomic_dec(&c->busy);
	}
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(_stpx_run_entry);

static notrace void _stpx_run_probe_saved(const struct _stpx_probe *p, struct pt_regs *regs,
					  int64_t *saved)
{
	struct _stpx_context *c;
	unsigned long flags = 0;

	if (atomic_read(&_stpx_state) != p->state)
		return;
	if (p->interruptible)
		preempt_disable();
	else
		local_irq_save(flags);
	c = _stpx_ctx_claim(p, regs, saved);
	if (!c)
		goto leave;
	if (!_stpx_lock(p->locks, p->nlocks)) {
		_stpx_count_skip();
		goto release;
	}
	p->handler(c);
	_stpx_unlock(p->locks, p->nlocks);
	_stpx_print_flush(c);
	if (unlikely(c->last_error))
		_stpx_report_error(c);
release:
	atomic_dec(&c->busy);
leave:
	if (p->interruptible)
		preempt_enable();
	else
		local_irq_restore(flags);
}

#endif /* _STPX_SESSION_H_ */
