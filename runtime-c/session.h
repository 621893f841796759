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
struct _stpx_entry_tracker;

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
	/*
	 * .return probes: what to save at function entry, how many values,
	 * and the bytes of a kretprobe instance's data that holds them.
	 */
	void (*entry)(struct _stpx_context *c, int64_t *saved);
	unsigned int nsaved;
	size_t entry_size;
	/* The globals entry() uses (@entry(...) of script expressions). */
	const struct _stpx_lock_req *entry_locks;
	unsigned int nentry_locks;
	/* Probes that read entry values: the watcher of their function's entry. */
	const struct _stpx_entry_tracker *entry_tracker;
	unsigned int index;			/* in _stpx_probes[] */
	const char *loc;			/* the declaration: "FILE:LINE:COL" */
};

#ifdef STPX_TIMING
/*
 * -t: each probe point's hits and the cycles its handler took (claim to
 * release: locks, handler, print flush), per CPU, summed at the end
 * (session.c). Only the CPU's own claimed handler writes its slots, with
 * interrupts or preemption off, so plain adds suffice.
 */
struct _stpx_timing {
	u64 hits, cycles, min, max;
};
static struct _stpx_timing __percpu *_stpx_timings;	/* [ARRAY_SIZE(_stpx_probes)] */

static __always_inline void _stpx_timing_add(const struct _stpx_probe *p, cycles_t t0)
{
	u64 spent = get_cycles() - t0;
	struct _stpx_timing *t = this_cpu_ptr(_stpx_timings) + p->index;

	if (!t->hits++ || spent < t->min)
		t->min = spent;
	if (spent > t->max)
		t->max = spent;
	t->cycles += spent;
}
#endif

static atomic_t _stpx_state = ATOMIC_INIT(STPX_STATE_IDLE);
static atomic_t _stpx_errors = ATOMIC_INIT(0);
static atomic_t _stpx_skipped = ATOMIC_INIT(0);
/* The target process (stap's -c CMD or -x PID), for target(); else 0. */
static long _stpx_target;

/*
 * Whether t is the -c/-x target or descends from it: where process probes
 * fire under -c/-x (stap's rule). A walk up real_parent, a few steps.
 */
static inline bool _stpx_in_target_tree(struct task_struct *t)
{
	bool in = false;

	rcu_read_lock();
	for (; t && t->pid > 1; t = rcu_dereference(t->real_parent))
		if (t->tgid == _stpx_target) {
			in = true;
			break;
		}
	rcu_read_unlock();
	return in;
}
/* The daemon's process ID, for stp_pid(). */
static long _stpx_daemon_pid;
/*
 * The daemon's local time zone when it loaded the module, as module
 * parameters (protocol.h): seconds west of UTC and the zone's name, for
 * tz_gmtoff(), tz_name() and tz_ctime(). Without them: UTC.
 */
static long _stpx_tz_gmtoff;
module_param(_stpx_tz_gmtoff, long, 0);
static char _stpx_tz_name[STPX_TZ_NAME_MAX] = "UTC";
module_param_string(_stpx_tz_name, _stpx_tz_name, sizeof(_stpx_tz_name), 0);

/*
 * The real user ID of the daemon that loaded the module (a module
 * parameter too): is_myproc(), and the check --privilege=stapusr puts in
 * front of every myproc-unprivileged function, compare the current task's
 * effective user ID with it. Without it: root.
 */
static long _stpx_user_uid;
module_param(_stpx_user_uid, long, 0);

#ifdef STPX_GLOBAL_PARAMS
/*
 * A scalar global of the user's script, as a module parameter of its name:
 * `stapx-run mod.ko NAME=VALUE` (staprun's form) sets it before the
 * module's init, which then keeps it instead of the declared (or -G)
 * value.
 */
struct _stpx_gparam {
	void *var;
	bool set;
};

static int _stpx_gparam_set_long(const char *val, const struct kernel_param *kp)
{
	struct _stpx_gparam *p = kp->arg;
	long long v;
	int rc = kstrtoll(val, 0, &v);

	if (rc)
		return rc;
	*(int64_t *)p->var = v;
	p->set = true;
	return 0;
}

static int _stpx_gparam_set_string(const char *val, const struct kernel_param *kp)
{
	struct _stpx_gparam *p = kp->arg;

	strscpy(p->var, val, MAXSTRINGLEN);
	p->set = true;
	return 0;
}

static const struct kernel_param_ops _stpx_gparam_long_ops = { .set = _stpx_gparam_set_long };
static const struct kernel_param_ops _stpx_gparam_string_ops = { .set = _stpx_gparam_set_string };
#endif

static inline bool _stpx_is_myproc(void)
{
	return from_kuid_munged(&init_user_ns, current_euid()) == _stpx_user_uid;
}

/*
 * Whether a process probe may fire in the current task: with
 * --privilege=stapusr (STPX_UNPRIVILEGED) only in the user's own
 * processes, as stap's rule for unprivileged users is.
 */
static __always_inline bool _stpx_process_allowed(void)
{
#ifdef STPX_UNPRIVILEGED
	return _stpx_is_myproc();
#else
	return true;
#endif
}

/*
 * abort(): the script stops as after exit() and the handler ends at once,
 * as on an error, but with this "error", which try/catch does not catch
 * and which is not reported.
 */
static const char _stpx_abort_msg[] = "abort";
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
	if (c->last_error == _stpx_abort_msg)
		return;
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

/* A limit the session cannot go past: reported and the script stopped
 * (end probes give way to error probes, and the run's status is 1). As in
 * stap it is not one of the handler errors that the summary counts. */
static void _stpx_stop_on_limit(const char *msg)
{
	_stpx_report(STPX_MSG_ERROR, "%s", msg);
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
/*
 * Overload accounting by sampling: timing every handler (two cycle-counter
 * reads and a per-CPU sum) cost about 20 instructions a hit, as much as a
 * counting handler's own work. Instead each CPU times one hit in a
 * pseudo-random 1 to 32 (16.5 on average) and counts it as that many hits:
 * the per-CPU countdown is the only work on the other hits. The weight of
 * a sample is drawn before the sample is taken, independent of what the
 * handler does, so the estimate's expectation is the true sum, and a
 * script whose handlers keep a CPU busy past the threshold is stopped as
 * before (a handler that is slow only now and then is missed now and then,
 * never systematically).
 */
struct _stpx_overload {
	cycles_t start;		/* of the current interval */
	cycles_t used;		/* estimated handler cycles in it */
	int countdown;		/* hits until the next timed one */
	u32 weight;		/* hits the next timed one stands for */
	u32 rand;		/* xorshift state */
};
static DEFINE_PER_CPU(struct _stpx_overload, _stpx_overload);

static noinline void _stpx_overload_exceeded(void)
{
	static atomic_t reported = ATOMIC_INIT(0);

	if (!atomic_xchg(&reported, 1))
		_stpx_stop_on_limit("ERROR: probe overhead exceeded threshold");
}

/* Adds the sampled hit's cycles since t0, times its weight, to this CPU's
 * count; stops the script, once, when the count passes
 * STP_OVERLOAD_THRESHOLD within an interval; draws the next sample. */
static noinline notrace void _stpx_overload_account(cycles_t t0)
{
	struct _stpx_overload *o = this_cpu_ptr(&_stpx_overload);
	cycles_t now = get_cycles();
	/* One sample stands for up to 32 hits: a hit that was itself held up
	 * (a virtual CPU the host did not run for a while, an interrupt storm)
	 * counts for at most a 32nd of the threshold, so that one such
	 * outlier, multiplied, cannot stop the script alone. A handler that
	 * is slow every time is still stopped, by its other samples. */
	cycles_t took = min_t(cycles_t, now - t0, STP_OVERLOAD_THRESHOLD / 32);
	cycles_t used = o->used + took * o->weight;
	u32 x = o->rand ? o->rand : 2463534242u + raw_smp_processor_id();

	if (unlikely(now - o->start > STP_OVERLOAD_INTERVAL)) {
		o->start = now;
		used = took * o->weight;
	}
	o->used = used;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	o->rand = x;
	o->weight = 1 + (x & 31);
	o->countdown = o->weight - 1;	/* it and weight - 1 untimed hits */
	if (unlikely(used > STP_OVERLOAD_THRESHOLD))
		_stpx_overload_exceeded();
}
NOKPROBE_SYMBOL(_stpx_overload_account);

/*
 * Runs a handler, timing it if this CPU's countdown says so. The first hit
 * on each CPU is timed (the countdown starts at 0) with weight 0: it only
 * seeds the sampling. A timed hit calls the handler out of line, so that
 * the inlined copy, the one nearly every hit runs, carries nothing of the
 * timing (no start time kept across it, no test after it).
 */
static __always_inline bool _stpx_overload_due(void)
{
#if defined(CONFIG_X86_64) && defined(CONFIG_SMP)
	/* One decrement and a jump on its sign (this_cpu_dec_return takes
	 * four instructions: xadd, then a subtraction and a test). Where the
	 * compiler knows the per-CPU segment as an address space (kernels
	 * that define __force_percpu_arg), __percpu_arg leaves the %gs:
	 * prefix to an operand of that space, which a plain one is not. */
#ifdef __force_percpu_arg
	asm goto("decl " __force_percpu_arg(0) "\n\tjs %l[due]"
		 : : "m"(_stpx_overload.countdown) : "memory", "cc" : due);
#else
	asm goto("decl " __percpu_arg(0) "\n\tjs %l[due]"
		 : : "m"(_stpx_overload.countdown) : "memory", "cc" : due);
#endif
	return false;
due:
	return true;
#else
	return __this_cpu_dec_return(_stpx_overload.countdown) < 0;
#endif
}

static __always_inline void _stpx_run_handler(void (*handler)(struct _stpx_context *c),
					      struct _stpx_context *c)
{
	if (unlikely(_stpx_overload_due())) {
		void (*h)(struct _stpx_context *c) = handler;
		cycles_t t0;

		OPTIMIZER_HIDE_VAR(h);
		t0 = get_cycles();
		h(c);
		_stpx_overload_account(t0);
		return;
	}
	handler(c);
}
#else
static __always_inline void _stpx_run_handler(void (*handler)(struct _stpx_context *c),
					      struct _stpx_context *c)
{
	handler(c);
}
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
 * says whether that worked. The globals an @entry(...) expression uses
 * are locked for it alone; if they cannot be had, the hit is skipped (the
 * return half then does not run), as a handler's would be.
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
		if (_stpx_lock(p->entry_locks, p->nentry_locks)) {
			p->entry(c, saved + 1);
			_stpx_unlock(p->entry_locks, p->nentry_locks);
			if (!c->last_error)
				saved[0] = 1;
		} else {
			_stpx_count_skip();
		}
		c->at_entry = 0;
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
					    struct pt_regs *regs, int64_t *saved,
					    void *family_data)
{
	struct _stpx_context *c;
	unsigned long flags = 0;
#ifdef STPX_TIMING
	cycles_t t0;
#endif

	if (atomic_read(&_stpx_state) != proto->state)
		return;
	if (proto->interruptible)
		preempt_disable();
	else
		local_irq_save(flags);
	c = this_cpu_read(_stpx_ctx);
	if (!_stpx_ctx_claim(c, p, regs, saved, proto->flags & STPX_PROBE_CONTEXT))
		goto leave;
#ifdef STPX_TIMING
	t0 = get_cycles();
#endif
	if (family_data)
		c->family_data = family_data;
	if (proto->flags & STPX_PROBE_ACTIONS) {
		c->actioncount = 0;
		c->maxaction = proto->interruptible ? MAXACTION_INTERRUPTIBLE : MAXACTION;
	}
	if (!_stpx_lock(proto->locks, proto->nlocks)) {
		_stpx_count_skip();
		goto release;
	}
	_stpx_run_handler(proto->handler, c);
	_stpx_unlock(proto->locks, proto->nlocks);
	if (proto->flags & STPX_PROBE_PRINTS)
		_stpx_print_flush(c);
	/* (The handler reported its error, if any: see codegen's probe_body.) */
release:
#ifdef STPX_TIMING
	_stpx_timing_add(p, t0);
#endif
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
	_stpx_probe_hit(p, p, regs, saved, NULL);
}
NOKPROBE_SYMBOL(_stpx_run_probe_saved);

/* A hit whose handler reads the family's own data (c->family_data). */
static notrace void _stpx_run_probe_data(const struct _stpx_probe *p, void *data)
{
	_stpx_probe_hit(p, p, NULL, NULL, data);
}

#endif /* _STPX_SESSION_H_ */
