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
	atomic_t cnt;	/* 0 free, > 0 readers, -1 writer */
};

struct _stpx_lock_req {
	struct _stpx_rwlock *lock;
	int write;
};

static inline bool _stpx_trylock_one(struct _stpx_rwlock *l, int write)
{
	int v = 0;

	if (write)	/* free is the common case: try it straight away */
		return atomic_try_cmpxchg_acquire(&l->cnt, &v, -1);
	v = atomic_read(&l->cnt);
	return v >= 0 && atomic_try_cmpxchg_acquire(&l->cnt, &v, v + 1);
}

static inline void _stpx_unlock_one(struct _stpx_rwlock *l, int write)
{
	if (write)
		atomic_set_release(&l->cnt, 0);
	else
		atomic_dec_return_release(&l->cnt);
}

static inline void _stpx_unlock(const struct _stpx_lock_req *req, unsigned int n)
{
	while (n--)
		_stpx_unlock_one(req[n].lock, req[n].write);
}

static inline bool _stpx_lock(const struct _stpx_lock_req *req, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int tries = MAXTRYLOCK;

		while (!_stpx_trylock_one(req[i].lock, req[i].write)) {
			if (--tries <= 0) {
				_stpx_unlock(req, i);
				return false;
			}
			ndelay(TRYLOCKDELAY);
		}
	}
	return true;
}

#endif /* _STPX_LOCK_H_ */
