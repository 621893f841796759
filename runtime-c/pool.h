/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fixed pool of equal-sized objects, filled when a family arms its
 * probes, for the records a family keeps from contexts where nothing may
 * allocate: tracepoint handlers run with preemption off, and on
 * PREEMPT_RT no allocator may be called there, GFP_ATOMIC or not (its
 * locks sleep). Get and put take the pool's own raw spinlock, innermost of
 * any the caller holds, so they work in any context.
 */
#ifndef _STPX_POOL_H_
#define _STPX_POOL_H_

#include <linux/spinlock.h>
#include <linux/vmalloc.h>

struct _stpx_pool {
	void *mem;		/* n objects of size bytes */
	void *free;		/* the free ones, chained through their first word */
	size_t size, n, used;
	atomic_t dropped;	/* gets that found the pool empty */
	raw_spinlock_t lock;
};

/* Fills p with n objects of size bytes (sleeps); -ENOMEM if it cannot. */
static int _stpx_pool_init(struct _stpx_pool *p, size_t size, size_t n)
{
	size_t i;

	size = ALIGN(max(size, sizeof(void *)), sizeof(void *));
	p->mem = vmalloc(array_size(n, size));
	if (!p->mem)
		return -ENOMEM;
	p->size = size;
	p->n = n;
	p->used = 0;
	p->free = NULL;
	for (i = n; i-- > 0;) {
		void *o = (char *)p->mem + i * size;

		*(void **)o = p->free;
		p->free = o;
	}
	atomic_set(&p->dropped, 0);
	raw_spin_lock_init(&p->lock);
	return 0;
}

/* Once nothing can get or put any more. */
static void _stpx_pool_destroy(struct _stpx_pool *p)
{
	vfree(p->mem);
	p->mem = NULL;
	p->free = NULL;
}

/* A free object, zeroed, or NULL (counted in dropped) when none is left. */
static notrace void *_stpx_pool_get(struct _stpx_pool *p)
{
	unsigned long flags;
	void *o;

	raw_spin_lock_irqsave(&p->lock, flags);
	o = p->free;
	if (o) {
		p->free = *(void **)o;
		p->used++;
	}
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (!o) {
		atomic_inc(&p->dropped);
		return NULL;
	}
	memset(o, 0, p->size);
	return o;
}
NOKPROBE_SYMBOL(_stpx_pool_get);

static notrace void _stpx_pool_put(struct _stpx_pool *p, void *o)
{
	unsigned long flags;

	if (!o)
		return;
	raw_spin_lock_irqsave(&p->lock, flags);
	*(void **)o = p->free;
	p->free = o;
	p->used--;
	raw_spin_unlock_irqrestore(&p->lock, flags);
}
NOKPROBE_SYMBOL(_stpx_pool_put);

#endif /* _STPX_POOL_H_ */
