/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timer.ms(N), timer.s(N) and friends: one hrtimer per probe, re-armed from
 * its own callback while the session runs. With .randomize(M) each interval
 * is N plus a uniform value in [-M, M].
 */

struct _stpx_timer {
	const struct _stpx_probe *probe;
	u64 interval_ns;
	u64 randomize_ns;
	int armed;
	struct hrtimer t;
};

static notrace u64 _stpx_timer_next(const struct _stpx_timer *st)
{
	u64 rem;

	if (!st->randomize_ns)
		return st->interval_ns;
	div64_u64_rem(get_random_u64(), 2 * st->randomize_ns + 1, &rem);
	return st->interval_ns - st->randomize_ns + rem;
}

static notrace enum hrtimer_restart _stpx_timer_fn(struct hrtimer *t)
{
	struct _stpx_timer *st = container_of(t, struct _stpx_timer, t);

	_stpx_run_probe(st->probe, NULL);
	if (atomic_read(&_stpx_state) != STPX_STATE_RUNNING &&
	    atomic_read(&_stpx_state) != STPX_STATE_STARTING)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(_stpx_timer_next(st)));
	return HRTIMER_RESTART;
}

static int _stpx_timers_arm(struct _stpx_timer *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		/* _HARD: expiring in hard interrupt context on PREEMPT_RT too
		 * (elsewhere they all do), so that a handler sees the task the
		 * tick interrupted, as on other kernels, not the softirq thread
		 * RT would run it in. Handlers take raw locks only. */
		hrtimer_init(&t[i].t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		t[i].t.function = _stpx_timer_fn;
		hrtimer_start(&t[i].t, ns_to_ktime(_stpx_timer_next(&t[i])), HRTIMER_MODE_REL_HARD);
		t[i].armed = 1;
	}
	return 0;
}

static void _stpx_timers_disarm(struct _stpx_timer *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].armed)
			hrtimer_cancel(&t[i].t);
		t[i].armed = 0;
	}
}

/*
 * timer.profile: on every online CPU, a pinned hrtimer at the tick rate
 * (TICK_NSEC); the handler sees the interrupted code's registers.
 */
struct _stpx_profile_cpu {
	const struct _stpx_probe *probe;
	struct hrtimer t;
	int armed;
};

struct _stpx_profile {
	const struct _stpx_probe *probe;
	struct _stpx_profile_cpu __percpu *cpu;
};

static notrace enum hrtimer_restart _stpx_profile_fn(struct hrtimer *t)
{
	struct _stpx_profile_cpu *pc = container_of(t, struct _stpx_profile_cpu, t);

	_stpx_run_probe(pc->probe, get_irq_regs());
	if (atomic_read(&_stpx_state) != STPX_STATE_RUNNING &&
	    atomic_read(&_stpx_state) != STPX_STATE_STARTING)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(TICK_NSEC));
	return HRTIMER_RESTART;
}

/* Runs on each CPU (on_each_cpu): starts that CPU's timer there. */
static void _stpx_profile_start_cpu(void *info)
{
	struct _stpx_profile *p = info;
	struct _stpx_profile_cpu *pc = this_cpu_ptr(p->cpu);

	pc->probe = p->probe;
	hrtimer_init(&pc->t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	pc->t.function = _stpx_profile_fn;
	hrtimer_start(&pc->t, ns_to_ktime(TICK_NSEC), HRTIMER_MODE_REL_PINNED_HARD);
	pc->armed = 1;
}

static void _stpx_profiles_disarm(struct _stpx_profile *p, size_t n)
{
	size_t i;
	int cpu;

	for (i = 0; i < n; i++) {
		if (!p[i].cpu)
			continue;
		for_each_possible_cpu(cpu) {
			struct _stpx_profile_cpu *pc = per_cpu_ptr(p[i].cpu, cpu);

			if (pc->armed)
				hrtimer_cancel(&pc->t);
			pc->armed = 0;
		}
		free_percpu(p[i].cpu);
		p[i].cpu = NULL;
	}
}

static int _stpx_profiles_arm(struct _stpx_profile *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i].cpu = alloc_percpu(struct _stpx_profile_cpu);
		if (!p[i].cpu) {
			_stpx_profiles_disarm(p, i);
			return -ENOMEM;
		}
	}
	cpus_read_lock();
	for (i = 0; i < n; i++)
		on_each_cpu(_stpx_profile_start_cpu, &p[i], 1);
	cpus_read_unlock();
	return 0;
}
