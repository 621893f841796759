/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader/writer locks for script globals, built on one atomic so that they
 * never sleep (also on PREEMPT_RT). Handlers take every lock they need at
 * entry, in the canonical (global declaration) order, each with a bounded
 * number of attempts (MAXTRYLOCK, TRYLOCKDELAY ns apart); a handler that
 * cannot get them is skipped and counted rather than risking a deadlock.
 * The wait is about 1 ms by default: far above any real handler's hold
 * time, yet long enough for a lock holder whose (virtual) CPU the host
 * preempted for a moment.
 */
#ifndef _STPX_LOCK_H_
#define _STPX_LOCK_H_

struct _stpx_rwlock {
	atomic_t cnt;	/* readers (also ones backing off), + STPX_WRITER when written */
};

/*
 * A writer adds this (from 0 only); a reader adds one and sees from the
 * sign of the result whether a writer holds the lock, in one locked
 * instruction (no load, compare and cmpxchg); if one does, it takes its
 * one back. So
 * the count is negative exactly while a writer holds the lock, whatever
 * readers back off meanwhile.
 */
#define STPX_WRITER (-0x40000000)

struct _stpx_lock_req {
	struct _stpx_rwlock *lock;
	int write;
};

static __always_inline bool _stpx_trylock_one(struct _stpx_rwlock *l, int write)
{
	int v = 0;

	if (write)	/* free is the common case: try it straight away */
		return atomic_try_cmpxchg_acquire(&l->cnt, &v, STPX_WRITER);
	/* (Fully ordered, as value-returning atomics are: also acquire.) */
	if (likely(!atomic_add_negative(1, &l->cnt)))
		return true;
	atomic_dec(&l->cnt);
	return false;
}

/* Release: the barrier orders the critical section before the atomic (on
 * x86 the locked instruction does, and this is one `lock sub`/`lock dec`). */
static __always_inline void _stpx_unlock_one(struct _stpx_rwlock *l, int write)
{
	smp_mb__before_atomic();
	if (write)	/* readers backing off may hold counts: subtract */
		atomic_sub(STPX_WRITER, &l->cnt);
	else
		atomic_dec(&l->cnt);
}

static __always_inline void _stpx_unlock(const struct _stpx_lock_req *req, unsigned int n)
{
	while (n--)
		_stpx_unlock_one(req[n].lock, req[n].write);
}

/*
 * Lock i of req was just tried once, in vain: tries it MAXTRYLOCK - 1 more
 * times, TRYLOCKDELAY ns apart, then the rest MAXTRYLOCK times each. Out
 * of line: the handlers' inlined fast path only tries each lock once.
 */
static noinline notrace bool _stpx_lock_slow(const struct _stpx_lock_req *req, unsigned int n,
					     unsigned int i)
{
	int tries = MAXTRYLOCK - 1;	/* lock i had its first try */

	while (i < n) {
		if (tries-- <= 0) {
			_stpx_unlock(req, i);
			return false;
		}
		ndelay(TRYLOCKDELAY);
		if (!_stpx_trylock_one(req[i].lock, req[i].write))
			continue;
		/* The next locks get a first try straight away. */
		for (i++; i < n; i++)
			if (!_stpx_trylock_one(req[i].lock, req[i].write))
				break;
		tries = MAXTRYLOCK - 1;
	}
	return true;
}
NOKPROBE_SYMBOL(_stpx_lock_slow);

static __always_inline bool _stpx_lock(const struct _stpx_lock_req *req, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (unlikely(!_stpx_trylock_one(req[i].lock, req[i].write)))
			return _stpx_lock_slow(req, n, i);
	return true;
}

#endif /* _STPX_LOCK_H_ */
