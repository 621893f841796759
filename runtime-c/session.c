/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Session callbacks of the transport (see transport/transport.h): run begin
 * probes and arm the others on "start"; disarm, run end probes on "stop"
 * (error probes instead, when run-time errors stopped the session).
 * Both run in the daemon's process context.
 */

static bool _stpx_armed;

int _stpx_session_start(long target)
{
	unsigned int i;
	int s = STPX_STATE_IDLE;
	int rc;

	if (!atomic_try_cmpxchg(&_stpx_state, &s, STPX_STATE_STARTING))
		return -EBUSY;
	/* Set once, before any handler can read it. */
	_stpx_target = target;
	_stpx_daemon_pid = task_tgid_nr(current);
	for (i = 0; i < _stpx_n_begin; i++)
		_stpx_run_probe(_stpx_begin_probes[i], NULL);

	/* exit() in a begin probe: nothing else is armed. */
	if (atomic_read(&_stpx_state) != STPX_STATE_STARTING)
		return 0;
	rc = _stpx_arm_probes();
	if (rc) {
		_stpx_disarm_probes();
		atomic_set(&_stpx_state, STPX_STATE_STOPPED);
		return rc;
	}
	_stpx_armed = true;
	s = STPX_STATE_STARTING;
	atomic_try_cmpxchg(&_stpx_state, &s, STPX_STATE_RUNNING);
	return 0;
}

#ifdef STPX_TIMING
/*
 * -t's report, after the end probes' output: a line for each probe point
 * that ran, its hits and min/avg/max cycles over all CPUs.
 */
static void _stpx_timing_report(void)
{
	static const char head[] = "----- probe hit report: \n";
	char line[512];
	unsigned int i;
	int cpu, n;

	_stpx_transport_write(head, sizeof(head) - 1);
	for (i = 0; i < ARRAY_SIZE(_stpx_probes); i++) {
		const struct _stpx_probe *p = &_stpx_probes[i];
		struct _stpx_timing sum = { 0 };

		for_each_possible_cpu(cpu) {
			const struct _stpx_timing *t = per_cpu_ptr(_stpx_timings, cpu) + i;

			if (!t->hits)
				continue;
			if (!sum.hits || t->min < sum.min)
				sum.min = t->min;
			if (t->max > sum.max)
				sum.max = t->max;
			sum.hits += t->hits;
			sum.cycles += t->cycles;
		}
		if (!sum.hits)
			continue;
		n = scnprintf(line, sizeof(line),
			      "%s, (%s), hits: %llu, cycles: %llumin/%lluavg/%llumax, from: %s, index: %u\n",
			      p->pp, p->loc, sum.hits, sum.min, div64_u64(sum.cycles, sum.hits),
			      sum.max, p->pn, i);
		_stpx_transport_write(line, n);
	}
}
#endif

void _stpx_session_stop(void)
{
	unsigned int i;

	if (atomic_read(&_stpx_state) == STPX_STATE_STOPPED)
		return;
	atomic_set(&_stpx_state, STPX_STATE_STOPPING);
	if (_stpx_armed) {
		/* Waits for handlers still running on other CPUs. */
		_stpx_disarm_probes();
		_stpx_armed = false;
	}
	if (atomic_read(&_stpx_error_exit)) {
		for (i = 0; i < _stpx_n_error; i++)
			_stpx_run_probe(_stpx_error_probes[i], NULL);
	} else {
		for (i = 0; i < _stpx_n_end; i++)
			_stpx_run_probe(_stpx_end_probes[i], NULL);
	}
#ifdef STPX_TIMING
	_stpx_timing_report();
#endif
	atomic_set(&_stpx_state, STPX_STATE_STOPPED);
}

void _stpx_session_counters(unsigned long *errors, unsigned long *skipped)
{
	*errors = atomic_read(&_stpx_errors);
	*skipped = atomic_read(&_stpx_skipped);
}
