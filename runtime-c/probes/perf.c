/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.type(T).config(C)[.sample(N) | .hz(F)]: a kernel perf event counter
 * on every online CPU, whose overflow (every N events, or F times a
 * second) runs the probe with the interrupted registers.
 *
 * With .process("PATH") the counters are the threads' of the processes
 * running PATH instead, one per thread: those there when the script
 * starts, and each thread such a process makes or that execs PATH later.
 * A counter is made in process context (perf_event_create_kernel_counter
 * sleeps), by a work item the scheduler's tracepoints queue, so the first
 * moments of a new thread (before the work item runs) are not counted.
 *
 * A .counter("NAME") never overflows: @perf("NAME") reads the current
 * thread's count, or without .process the current CPU's.
 */
#include <linux/perf_event.h>
#include <linux/hashtable.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>
#include "pool.h"

struct _stpx_perf {
	const struct _stpx_probe *probe;
	u32 type;
	u64 config;
	u64 period;	/* events per hit, or hits per second with freq; 0: counting */
	int freq;
	const char *path;	/* .process: the program; NULL: every CPU */
	struct perf_event **events;	/* every CPU: one per possible CPU, NULL where none */
	struct inode *inode;	/* .process: PATH's */
};

static notrace void _stpx_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
					struct pt_regs *regs)
{
	const struct _stpx_perf *p = event->overflow_handler_context;

	_stpx_run_probe(p->probe, regs);
}

static struct perf_event *_stpx_perf_create(struct _stpx_perf *p, int cpu, struct task_struct *task)
{
	struct perf_event_attr attr = {
		.type = p->type,
		.size = sizeof(attr),
		.config = p->config,
		.freq = p->freq,
		.sample_period = p->period,
	};

	return perf_event_create_kernel_counter(&attr, cpu, task, p->period ? _stpx_perf_overflow : NULL, p);
}

/* The threads' counters of .process probes, by thread id (0 once the
 * thread has exited: the work item releases it, and the id may be reused). */
struct _stpx_perf_thread {
	struct hlist_node node;
	pid_t tid;
	struct _stpx_perf *perf;
	struct perf_event *event;
	struct task_struct *task;	/* held until disarmed */
};

/* A thread whose counter is due, until the work item makes it. */
struct _stpx_perf_due {
	struct list_head list;
	struct _stpx_perf *perf;
	struct task_struct *task;	/* held */
};

static struct _stpx_perf *_stpx_perf_table;
static size_t _stpx_perf_n;
static DEFINE_RAW_SPINLOCK(_stpx_perf_lock);	/* the threads and the due list */
static DEFINE_HASHTABLE(_stpx_perf_threads, 8);
static LIST_HEAD(_stpx_perf_due_list);
static size_t _stpx_perf_nthreads;	/* counted or due: at most this many */
#define STPX_PERF_MAX_THREADS 4096
/* Due records, from a pool (pool.h): the fork and exec tracepoints queue
 * them with preemption off, where PREEMPT_RT lets no allocator run. */
static struct _stpx_pool _stpx_perf_due_pool;
static atomic_t _stpx_perf_dropped = ATOMIC_INIT(0);

/* Whether task's counter for p is due already (the lock held). */
static bool _stpx_perf_is_due(const struct _stpx_perf *p, const struct task_struct *task)
{
	struct _stpx_perf_due *d;

	list_for_each_entry(d, &_stpx_perf_due_list, list)
		if (d->perf == p && d->task == task)
			return true;
	return false;
}

static struct _stpx_perf_thread *_stpx_perf_find(const struct _stpx_perf *p, pid_t tid)
{
	struct _stpx_perf_thread *t;

	hash_for_each_possible(_stpx_perf_threads, t, node, tid)
		if (t->tid == tid && t->perf == p)
			return t;
	return NULL;
}

/* An event's count (IRQs off): running here, it may hold counts its PMU
 * has not added yet (perf_event_read_local's way). */
static notrace u64 _stpx_perf_count(struct perf_event *e)
{
	if (e->state == PERF_EVENT_STATE_ACTIVE && e->oncpu == smp_processor_id())
		e->pmu->read(e);
	return local64_read(&e->count);
}

/* @perf(NAME): the current thread's count (.process), else the current
 * CPU's; 0 if there is no counter. */
static notrace u64 _stpx_perf_read(const struct _stpx_perf *p)
{
	struct _stpx_perf_thread *t;
	unsigned long flags;
	u64 v = 0;

	raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
	if (p->events) {
		if (p->events[smp_processor_id()])
			v = _stpx_perf_count(p->events[smp_processor_id()]);
	} else if ((t = _stpx_perf_find(p, current->pid))) {
		v = _stpx_perf_count(t->event);
	}
	raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
	return v;
}

/* @perf(NAME) of the counter at i in the module's table (defined after it). */
static notrace u64 _stpx_perf_read_slot(int i);

static void _stpx_perf_work_fn(struct work_struct *w);
static DECLARE_WORK(_stpx_perf_work, _stpx_perf_work_fn);

/* The counters of exited threads: released, in process context. */
static void _stpx_perf_release_exited(void)
{
	struct _stpx_perf_thread *t;
	struct hlist_node *tmp;
	unsigned long flags;
	HLIST_HEAD(gone);
	int b;

	raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
	hash_for_each_safe(_stpx_perf_threads, b, tmp, t, node)
		if (!t->tid) {
			hash_del(&t->node);
			hlist_add_head(&t->node, &gone);
			_stpx_perf_nthreads--;
		}
	raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
	hlist_for_each_entry_safe(t, tmp, &gone, node) {
		perf_event_release_kernel(t->event);
		put_task_struct(t->task);
		kfree(t);
	}
}

/* Makes the counters due and releases the exited threads', in process
 * context. */
static void _stpx_perf_work_fn(struct work_struct *w)
{
	_stpx_perf_release_exited();
	for (;;) {
		struct _stpx_perf_due *d = NULL;
		struct _stpx_perf_thread *t;
		struct perf_event *e;
		unsigned long flags;

		raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
		if (!list_empty(&_stpx_perf_due_list)) {
			d = list_first_entry(&_stpx_perf_due_list, struct _stpx_perf_due, list);
			list_del(&d->list);
		}
		raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
		if (!d)
			return;
		e = NULL;
		t = kzalloc(sizeof(*t), GFP_KERNEL);
		if (t && !(d->task->flags & PF_EXITING))
			e = _stpx_perf_create(d->perf, -1, d->task);
		if (IS_ERR_OR_NULL(e)) {
			if (IS_ERR(e) && atomic_inc_return(&_stpx_perf_dropped) == 1)
				pr_warn("stapx: perf counter for thread %d of %s: error %ld\n", d->task->pid,
					d->perf->path, PTR_ERR(e));
			kfree(t);
			put_task_struct(d->task);
			_stpx_pool_put(&_stpx_perf_due_pool, d);
			raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
			_stpx_perf_nthreads--;
			raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
			continue;
		}
		t->tid = d->task->pid;
		t->perf = d->perf;
		t->event = e;
		t->task = d->task;
		raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
		hash_add(_stpx_perf_threads, &t->node, t->tid);
		raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
		_stpx_pool_put(&_stpx_perf_due_pool, d);
	}
}

/* Queues counters for task, for each .process probe whose PATH is its
 * executable's (mm: the task's, held by the caller). Atomic context. */
static void _stpx_perf_queue(struct task_struct *task, struct mm_struct *mm)
{
	struct inode *inode = NULL;
	struct file *exe;
	unsigned long flags;
	bool queued = false;
	size_t i;

	if (!mm)
		return;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe)
		inode = file_inode(exe);
	rcu_read_unlock();
	if (!inode)
		return;
	for (i = 0; i < _stpx_perf_n; i++) {
		struct _stpx_perf *p = &_stpx_perf_table[i];
		struct _stpx_perf_due *d;

		if (p->inode != inode)
			continue;
		d = _stpx_pool_get(&_stpx_perf_due_pool);
		if (!d) {
			atomic_inc(&_stpx_perf_dropped);
			continue;
		}
		d->perf = p;
		d->task = task;
		raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
		if (_stpx_perf_find(p, task->pid) || _stpx_perf_is_due(p, task) ||
		    _stpx_perf_nthreads >= STPX_PERF_MAX_THREADS) {
			bool full = _stpx_perf_nthreads >= STPX_PERF_MAX_THREADS;

			raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
			if (full)
				atomic_inc(&_stpx_perf_dropped);
			_stpx_pool_put(&_stpx_perf_due_pool, d);
			continue;
		}
		get_task_struct(task);
		_stpx_perf_nthreads++;
		list_add_tail(&d->list, &_stpx_perf_due_list);
		raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
		queued = true;
	}
	if (queued)
		queue_work(system_unbound_wq, &_stpx_perf_work);	/* (not behind the thread itself) */
}

/* A new thread or process of a counted program (the child shares or
 * copies the parent's executable). */
static notrace void _stpx_perf_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	_stpx_perf_queue(child, child->mm);
}
NOKPROBE_SYMBOL(_stpx_perf_fork);

static notrace void _stpx_perf_exec(void *data, struct task_struct *task, pid_t old_pid,
				    struct linux_binprm *bprm)
{
	_stpx_perf_queue(task, task->mm);
}
NOKPROBE_SYMBOL(_stpx_perf_exec);

/* A thread exits: its counters are found no more, and go with the work. */
static notrace void _stpx_perf_exit(void *data, struct task_struct *task)
{
	struct _stpx_perf_thread *t;
	unsigned long flags;
	bool any = false;

	raw_spin_lock_irqsave(&_stpx_perf_lock, flags);
	hash_for_each_possible(_stpx_perf_threads, t, node, task->pid)
		if (t->task == task) {
			t->tid = 0;
			any = true;
		}
	raw_spin_unlock_irqrestore(&_stpx_perf_lock, flags);
	if (any)
		queue_work(system_unbound_wq, &_stpx_perf_work);
}
NOKPROBE_SYMBOL(_stpx_perf_exit);

static struct {
	const char *name;
	void *func;
	struct tracepoint *tp;
} _stpx_perf_tps[] = {
	{ "sched_process_fork", _stpx_perf_fork },
	{ "sched_process_exec", _stpx_perf_exec },
	{ "sched_process_exit", _stpx_perf_exit },
};

static void _stpx_perf_disarm(struct _stpx_perf *p, size_t n)
{
	struct _stpx_perf_thread *t;
	struct _stpx_perf_due *d, *dn;
	struct hlist_node *tmp;
	bool any = false;
	size_t i;
	int cpu, b;

	for (i = 0; i < ARRAY_SIZE(_stpx_perf_tps); i++)
		any |= _stpx_tp_unhook(&_stpx_perf_tps[i].tp, _stpx_perf_tps[i].func);
	if (any)
		tracepoint_synchronize_unregister();
	/* Nothing queues any more: make what is due, then release it all. */
	flush_work(&_stpx_perf_work);
	list_for_each_entry_safe(d, dn, &_stpx_perf_due_list, list) {
		list_del(&d->list);
		put_task_struct(d->task);
		_stpx_pool_put(&_stpx_perf_due_pool, d);
	}
	hash_for_each_safe(_stpx_perf_threads, b, tmp, t, node) {
		hash_del(&t->node);
		perf_event_release_kernel(t->event);
		put_task_struct(t->task);
		kfree(t);
	}
	_stpx_perf_nthreads = 0;
	_stpx_pool_destroy(&_stpx_perf_due_pool);
	if (atomic_read(&_stpx_perf_dropped))
		_stpx_report(STPX_MSG_WARNING, "WARNING: perf counters: %d thread(s) not counted",
			     atomic_read(&_stpx_perf_dropped));
	atomic_set(&_stpx_perf_dropped, 0);
	for (i = 0; i < n; i++) {
		if (p[i].inode) {
			iput(p[i].inode);
			p[i].inode = NULL;
		}
		if (!p[i].events)
			continue;
		for_each_possible_cpu(cpu)
			if (p[i].events[cpu])
				perf_event_release_kernel(p[i].events[cpu]);
		kfree(p[i].events);
		p[i].events = NULL;
	}
}

/* Every CPU's counters of p. */
static int _stpx_perf_arm_cpus(struct _stpx_perf *p)
{
	int cpu, rc;

	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *e = _stpx_perf_create(p, cpu, NULL);

		if (IS_ERR(e)) {
			rc = PTR_ERR(e);
			cpus_read_unlock();
			pr_err("perf event type %u config %llu on CPU %d: error %d\n", p->type,
			       (unsigned long long)p->config, cpu, rc);
			return rc;
		}
		p->events[cpu] = e;
	}
	cpus_read_unlock();
	return 0;
}

static int _stpx_perf_arm(struct _stpx_perf *p, size_t n)
{
	struct task_struct *g, *t;
	bool tasks = false;	/* some probe has .process */
	size_t i;
	int rc = 0;

	_stpx_perf_table = p;
	_stpx_perf_n = n;
	for (i = 0; i < n; i++) {
		if (!p[i].path) {
			rc = _stpx_perf_arm_cpus(&p[i]);
			if (rc)
				goto fail;
			continue;
		}
		p[i].inode = _stpx_path_inode(p[i].path);	/* (usyms.c) */
		if (IS_ERR(p[i].inode)) {
			rc = PTR_ERR(p[i].inode);
			p[i].inode = NULL;
			_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s: cannot find %s (rc %d)", p[i].probe->pp,
				     p[i].path, rc);
			goto fail;
		}
		tasks = true;
	}
	if (!tasks)
		return 0;
	rc = _stpx_pool_init(&_stpx_perf_due_pool, sizeof(struct _stpx_perf_due), STPX_PERF_MAX_THREADS);
	if (rc)
		goto fail;
	for (i = 0; i < ARRAY_SIZE(_stpx_perf_tps); i++) {
		struct tracepoint *tp = _stpx_tp_hook(_stpx_perf_tps[i].name, _stpx_perf_tps[i].func, NULL,
						       "perf counters");

		if (IS_ERR(tp)) {
			rc = PTR_ERR(tp);
			goto fail;
		}
		_stpx_perf_tps[i].tp = tp;
	}
	/* The threads already there (after the hooks: none is missed). */
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (t->flags & PF_KTHREAD)
			continue;
		task_lock(t);
		_stpx_perf_queue(t, t->mm);
		task_unlock(t);
	}
	rcu_read_unlock();
	return 0;
fail:
	_stpx_perf_disarm(p, n);
	return rc;
}
