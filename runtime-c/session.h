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

/* struct _stpx_probe flags */
#define STPX_PROBE_ACTIONS 1	/* the handler counts actions (MAXACTION) at run time */
#define STPX_PROBE_PRINTS 2	/* the handler may print */
#define STPX_PROBE_CONTEXT 4	/* it may read c->probe (pp()) or c->regs ($vars) */

/*
 * One probe point. The generated table of them is const, so that entry
 * points generated for one probe declaration (kprobes.c) can pass an entry
 * whose fields the compiler folds: the handler is then called directly,
 * the lock loop unrolled and unneeded steps left out.
 */
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
	unsigned int flags;			/* STPX_PROBE_* */
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

/* A limit the session cannot go past: reported, counted as an error, and
 * the script stopped (end probes give way to error probes). */
static void _stpx_stop_on_limit(const char *msg)
{
	_stpx_report(STPX_MSG_ERROR, "%s", msg);
	atomic_inc(&_stpx_errors);
	atomic_set(&_stpx_error_exit, 1);
	_stpx_request_exit();
}

static void _stpx_count_skip(void)
{
	if (atomic_inc_return(&_stpx_skipped) == MAXSKIPPED + 1 &&
	    !IS_ENABLED(STPX_SUPPRESS_HANDLER_ERRORS))
		_stpx_stop_on_limit("ERROR: Skipped too many probes, check MAXSKIPPED or MAXTRYLOCK.");
}

#ifndef STP_NO_OVERLOAD
/* This CPU's handler cycles in the current overload interval. */
struct _stpx_overload {
	cycles_t start;
	cycles_t used;
};
static DEFINE_PER_CPU(struct _stpx_overload, _stpx_overload);

static noinline void _stpx_overload_exceeded(void)
{
	static atomic_t reported = ATOMIC_INIT(0);

	if (!atomic_xchg(&reported, 1))
		_stpx_stop_on_limit("ERROR: probe overhead exceeded threshold");
}

/* Adds the cycles since t0 to this CPU's count; stops the script, once,
 * when the count passes STP_OVERLOAD_THRESHOLD within an interval. */
static __always_inline void _stpx_overload_account(cycles_t t0)
{
	cycles_t now = get_cycles();
	cycles_t used = __this_cpu_read(_stpx_overload.used) + (now - t0);

	if (unlikely(now - __this_cpu_read(_stpx_overload.start) > STP_OVERLOAD_INTERVAL)) {
		__this_cpu_write(_stpx_overload.start, now);
		used = now - t0;
	}
	__this_cpu_write(_stpx_overload.used, used);
	if (unlikely(used > STP_OVERLOAD_THRESHOLD))
		_stpx_overload_exceeded();
}
#define STPX_OVERLOAD_START() cycles_t _stpx_t0 = get_cycles()
#define STPX_OVERLOAD_END() _stpx_overload_account(_stpx_t0)
#else
#define STPX_OVERLOAD_START() do { } while (0)
#define STPX_OVERLOAD_END() do { } while (0)
#endif

/*
 * Claims this CPU's context c for a handler (interrupts or preemption
 * already off): false, with the hit counted as skipped, if a handler
 * already runs on it. _stpx_ctx_release() gives it back.
 *
 * busy needs no atomic operation: only this CPU touches its context, and
 * a handler that interrupts us between the test and the store (an
 * interrupt of an interruptible probe, an NMI) runs to its end, busy back
 * to 0, before we go on.
 *
 * Between handlers a context keeps nesting at 0 (calls restore it, also on
 * errors), last_error and last_loc at NULL (reported errors are cleared,
 * caught ones too) and print_len at 0 (flushed): a hit does not reset them.
 */
static __always_inline bool _stpx_ctx_claim(struct _stpx_context *c, const struct _stpx_probe *p,
					     struct pt_regs *regs, int64_t *saved, bool context)
{
	if (unlikely(READ_ONCE(c->busy))) {
		_stpx_count_skip();
		return false;
	}
	WRITE_ONCE(c->busy, 1);
	barrier();
	if (context) {
		c->probe = p;
		c->regs = regs;
	}
	/* Only .return handlers with saved values read it. */
	if (saved)
		c->entry_saved = saved;
#ifdef STPX_RE_SUBMATCH
	/* matched() before any =~ of this hit finds no match. */
	c->re_last.result = 0;
#endif
	return true;
}

static __always_inline void _stpx_ctx_release(struct _stpx_context *c)
{
	barrier();
	WRITE_ONCE(c->busy, 0);
}

/* Errors: report, then clear for the next handler (handlers end with this). */
static __always_inline void _stpx_ctx_check_error(struct _stpx_context *c)
{
	if (unlikely(c->last_error)) {
		_stpx_report_error(c);
		c->last_error = NULL;
		c->last_loc = NULL;
	}
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
	c = this_cpu_read(_stpx_ctx);
	if (_stpx_ctx_claim(c, p, regs, NULL, true)) {
		/* @entry(expr) may call script functions, which count actions. */
		c->actioncount = 0;
		c->maxaction = MAXACTION;
		c->at_entry = 1;
		p->entry(c, saved + 1);
		c->at_entry = 0;
		if (!c->last_error)
			saved[0] = 1;
		_stpx_ctx_check_error(c);
		_stpx_ctx_release(c);
	}
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(_stpx_run_entry);

/*
 * One hit of probe point p, whose handler, locks, state and flags are
 * those of proto (p itself, or a point of the same declaration and family
 * whose fields the caller wants folded at compile time: see struct
 * _stpx_probe).
 */
static __always_inline void _stpx_probe_hit(const struct _stpx_probe *proto,
					    const struct _stpx_probe *p,
					    struct pt_regs *regs, int64_t *saved)
{
	struct _stpx_context *c;
	unsigned long flags = 0;

	if (atomic_read(&_stpx_state) != proto->state)
		return;
	if (proto->interruptible)
		preempt_disable();
	else
		local_irq_save(flags);
	c = this_cpu_read(_stpx_ctx);
	if (!_stpx_ctx_claim(c, p, regs, saved, proto->flags & STPX_PROBE_CONTEXT))
		goto leave;
	if (proto->flags & STPX_PROBE_ACTIONS) {
		c->actioncount = 0;
		c->maxaction = proto->interruptible ? MAXACTION_INTERRUPTIBLE : MAXACTION;
	}
	if (!_stpx_lock(proto->locks, proto->nlocks)) {
		_stpx_count_skip();
		goto release;
	}
	{
		STPX_OVERLOAD_START();
		proto->handler(c);
		STPX_OVERLOAD_END();
	}
	_stpx_unlock(proto->locks, proto->nlocks);
	if (proto->flags & STPX_PROBE_PRINTS)
		_stpx_print_flush(c);
	/* (The handler reported its error, if any: see codegen's probe_body.) */
release:
	_stpx_ctx_release(c);
leave:
	if (proto->interruptible)
		preempt_enable();
	else
		local_irq_restore(flags);
}

static notrace void _stpx_run_probe_saved(const struct _stpx_probe *p, struct pt_regs *regs,
					  int64_t *saved)
{
	_stpx_probe_hit(p, p, regs, saved);
}
NOKPROBE_SYMBOL(_stpx_run_probe_saved);

#endif /* _STPX_SESSION_H_ */
