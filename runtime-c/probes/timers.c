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
		hrtimer_init(&t[i].t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		t[i].t.function = _stpx_timer_fn;
		hrtimer_start(&t[i].t, ns_to_ktime(_stpx_timer_next(&t[i])), HRTIMER_MODE_REL);
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
