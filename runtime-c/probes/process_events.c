/* SPDX-License-Identifier: GPL-2.0 */
/*
 * process.begin, process.end, process.thread.begin, process.thread.end,
 * process.syscall and process.syscall.return, each for every user process (those of the -c/-x target's tree when
 * there is a target), for the process with a PID, or for the processes
 * running the file at PATH: from the scheduler's tracepoints, and from
 * sys_enter and sys_exit for the system call probes and the begin probes.
 *
 * A begin probe runs in the new process or thread itself (pid(),
 * execname() and its registers are its own): at its first return to user
 * space from a system call, which for a new task is its return from
 * fork/clone, and, as stap does, once in each process and thread that
 * exists when the script starts, the next time it leaves a system call
 * (one that never does never gets it). A process that execs PATH begins
 * as a PATH process there. An end probe runs in the exiting task: the
 * process's end when its main thread exits, thread.end for every other.
 *
 * PATH is matched through the executable's inode. Since a process's
 * memory (and with it its executable) is gone by the time the scheduler
 * reports its exit, the module keeps, per process, which PATHs it runs:
 * read for every process at start, inherited at fork, read again at exec,
 * forgotten when the process's main thread is freed.
 */
#include <linux/hashtable.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include "pool.h"

enum {
	STPX_PE_BEGIN,
	STPX_PE_END,
	STPX_PE_THREAD_BEGIN,
	STPX_PE_THREAD_END,
	STPX_PE_SYSCALL,
	STPX_PE_SYSCALL_RETURN,
};

/* What a system call probe's $syscall, $arg1..6 and $return are (c->family_data). */
struct _stpx_pe_hit {
	long syscall;
	unsigned long args[6];
	long ret;
};

struct _stpx_proc_event {
	const struct _stpx_probe *probe;
	int kind;
	const char *path;	/* or NULL */
	int path_slot;		/* path's bit in a process's mask (-1: none) */
	pid_t pid;		/* 0: any */
};

/* The table the generated module holds, and its PATHs' inodes by slot. */
static struct _stpx_proc_event *_stpx_pe;
static size_t _stpx_pe_n;
#define STPX_PE_SLOTS 64
static struct inode *_stpx_pe_inodes[STPX_PE_SLOTS];
static int _stpx_pe_nslots;
static bool _stpx_pe_syscalls;	/* some probe is on system calls */
static bool _stpx_pe_begins;	/* some probe is a begin */

/* A process or thread id with what the module knows about it. */
struct _stpx_pe_task {
	struct hlist_node node;
	pid_t id;
	u64 paths;	/* processes: the PATH slots its executable matches */
	const struct task_struct *leader;	/* processes: whose entry (never read) */
};

/*
 * The records come from a pool filled at arm time (pool.h): these
 * tracepoints' handlers run with preemption off, where PREEMPT_RT lets no
 * allocator run. It holds a record for each process running a PATH and
 * for each task whose begin probes are due (at the start: every task).
 */
#ifndef STPX_PE_MAX_TASKS
#define STPX_PE_MAX_TASKS 16384
#endif
static struct _stpx_pool _stpx_pe_pool;
static DEFINE_RAW_SPINLOCK(_stpx_pe_lock);
static DEFINE_HASHTABLE(_stpx_pe_procs, 8);	/* tgid -> paths */
static DEFINE_HASHTABLE(_stpx_pe_pending, 8);	/* tid: its begin probes are due */
static atomic_t _stpx_pe_npending = ATOMIC_INIT(0);

static struct _stpx_pe_task *_stpx_pe_find(struct hlist_head *table, size_t bits, pid_t id)
{
	struct _stpx_pe_task *t;

	hlist_for_each_entry(t, &table[hash_min(id, bits)], node)
		if (t->id == id)
			return t;
	return NULL;
}
#define STPX_PE_FIND(table, id) _stpx_pe_find(table, HASH_BITS(table), id)

/*
 * Adds (or updates) id in the table; under _stpx_pe_lock, which these
 * tracepoints' handlers and arming take, sched_process_free's in an RCU
 * callback: hence irqsave. False when out of memory.
 */
static bool _stpx_pe_put(struct hlist_head *table, size_t bits, pid_t id, u64 paths)
{
	struct _stpx_pe_task *t = _stpx_pe_find(table, bits, id);

	if (!t) {
		t = _stpx_pool_get(&_stpx_pe_pool);
		if (!t)
			return false;
		t->id = id;
		t->leader = NULL;
		hlist_add_head(&t->node, &table[hash_min(id, bits)]);
		if (table == _stpx_pe_pending)
			atomic_inc(&_stpx_pe_npending);
	}
	t->paths = paths;
	return true;
}
#define STPX_PE_PUT(table, id, paths) _stpx_pe_put(table, HASH_BITS(table), id, paths)

/* The process led by leader runs paths. */
static bool _stpx_pe_put_proc(const struct task_struct *leader, u64 paths)
{
	if (!STPX_PE_PUT(_stpx_pe_procs, leader->tgid, paths))
		return false;
	STPX_PE_FIND(_stpx_pe_procs, leader->tgid)->leader = leader;
	return true;
}

static void _stpx_pe_drop(struct hlist_head *table, struct _stpx_pe_task *t)
{
	hlist_del(&t->node);
	if (table == _stpx_pe_pending)
		atomic_dec(&_stpx_pe_npending);
	_stpx_pool_put(&_stpx_pe_pool, t);
}

/* The PATH slots that the executable of mm matches (mm held by the caller). */
static u64 _stpx_pe_mm_paths(struct mm_struct *mm)
{
	struct file *exe;
	struct inode *inode;
	u64 paths = 0;
	int i;

	if (!mm || !_stpx_pe_nslots)
		return 0;
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	inode = exe ? file_inode(exe) : NULL;
	for (i = 0; inode && i < _stpx_pe_nslots; i++)
		if (_stpx_pe_inodes[i] == inode)
			paths |= 1ULL << i;
	rcu_read_unlock();
	return paths;
}

static bool _stpx_pe_matches(const struct _stpx_proc_event *e, u64 paths)
{
	if (!_stpx_process_allowed())
		return false;
	if (e->pid)
		return current->tgid == e->pid;
	if (e->path_slot >= 0)
		return paths & (1ULL << e->path_slot);
	return !_stpx_target || _stpx_in_target_tree(current);
}

static u64 _stpx_pe_paths_of(pid_t tgid);

/*
 * Runs the probes of one kind that match the current task, with hit as
 * their c->family_data. `paths`: the task's PATH slots, or (known false)
 * looked up when a probe needs them.
 */
static notrace void _stpx_pe_fire(int kind, u64 paths, bool known, struct _stpx_pe_hit *hit)
{
	size_t i;

	for (i = 0; i < _stpx_pe_n; i++) {
		const struct _stpx_proc_event *e = &_stpx_pe[i];

		if (e->kind != kind)
			continue;
		if (e->path_slot >= 0 && !known) {
			paths = _stpx_pe_paths_of(current->tgid);
			known = true;
		}
		if (_stpx_pe_matches(e, paths))
			_stpx_probe_hit(e->probe, e->probe, task_pt_regs(current), NULL, hit);
	}
}

/* This process's PATH slots (0 when none or unknown). */
static u64 _stpx_pe_paths_of(pid_t tgid)
{
	struct _stpx_pe_task *p;
	unsigned long flags;
	u64 paths = 0;

	if (!_stpx_pe_nslots)
		return 0;
	raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
	p = STPX_PE_FIND(_stpx_pe_procs, tgid);
	if (p)
		paths = p->paths;
	raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
	return paths;
}

static notrace void _stpx_pe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct _stpx_pe_hit hit = { .syscall = id };

	if (!current->mm)
		return;
	syscall_get_arguments(current, regs, hit.args);
	_stpx_pe_fire(STPX_PE_SYSCALL, 0, false, &hit);
}
NOKPROBE_SYMBOL(_stpx_pe_sys_enter);

static notrace void _stpx_pe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct _stpx_pe_task *t, *p;
	bool thread = false, process = false;
	unsigned long flags;

	if (_stpx_pe_syscalls && current->mm) {
		struct _stpx_pe_hit hit = { .syscall = syscall_get_nr(current, regs), .ret = ret };

		_stpx_pe_fire(STPX_PE_SYSCALL_RETURN, 0, false, &hit);
	}
	if (likely(!atomic_read(&_stpx_pe_npending)) || !current->mm)
		return;
	raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
	t = STPX_PE_FIND(_stpx_pe_pending, current->pid);
	if (t) {
		thread = current->pid != current->tgid;
		_stpx_pe_drop(_stpx_pe_pending, t);
	}
	/* A process begins in whichever of its threads gets here first. */
	p = STPX_PE_FIND(_stpx_pe_pending, -current->tgid);
	if (p) {
		process = true;
		_stpx_pe_drop(_stpx_pe_pending, p);
	}
	raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
	if (process)
		_stpx_pe_fire(STPX_PE_BEGIN, 0, false, NULL);
	if (thread)
		_stpx_pe_fire(STPX_PE_THREAD_BEGIN, 0, false, NULL);
}
NOKPROBE_SYMBOL(_stpx_pe_sys_exit);

static notrace void _stpx_pe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct _stpx_pe_task *p;
	unsigned long flags;
	u64 paths = 0;

	if (!child->mm)
		return;	/* a kernel thread */
	raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
	if (child->pid == child->tgid) {
		/* A process: it runs what its parent ran, and begins. */
		p = STPX_PE_FIND(_stpx_pe_procs, parent->tgid);
		if (p)
			paths = p->paths;
		if (paths) {
			_stpx_pe_put_proc(child, paths);
		} else {
			/* (one left by a process that went before arming) */
			p = STPX_PE_FIND(_stpx_pe_procs, child->tgid);
			if (p)
				_stpx_pe_drop(_stpx_pe_procs, p);
		}
		if (_stpx_pe_begins)
			STPX_PE_PUT(_stpx_pe_pending, -child->tgid, 0);
	} else if (_stpx_pe_begins) {
		STPX_PE_PUT(_stpx_pe_pending, child->pid, 0);
	}
	raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
}
NOKPROBE_SYMBOL(_stpx_pe_fork);

static notrace void _stpx_pe_exec(void *data, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	struct _stpx_pe_task *p;
	u64 before = 0, now = _stpx_pe_mm_paths(current->mm);
	unsigned long flags;
	bool pending;
	size_t i;

	raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
	/* A process whose begin is still due begins here, as what it now runs. */
	p = STPX_PE_FIND(_stpx_pe_pending, -current->tgid);
	pending = p != NULL;
	if (p)
		_stpx_pe_drop(_stpx_pe_pending, p);
	p = STPX_PE_FIND(_stpx_pe_procs, current->tgid);
	if (p) {
		before = p->paths;
		if (now) {
			p->paths = now;
			p->leader = current;	/* (a thread that execs leads) */
		} else {
			_stpx_pe_drop(_stpx_pe_procs, p);
		}
	} else if (now) {
		_stpx_pe_put_proc(current, now);
	}
	raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
	if (pending) {
		_stpx_pe_fire(STPX_PE_BEGIN, now, true, NULL);
		return;
	}
	/* Now running PATH: a PATH process begins here. */
	for (i = 0; i < _stpx_pe_n; i++) {
		const struct _stpx_proc_event *e = &_stpx_pe[i];

		if (e->kind == STPX_PE_BEGIN && e->path_slot >= 0 && (now & ~before & (1ULL << e->path_slot)))
			_stpx_run_probe(e->probe, task_pt_regs(current));
	}
}
NOKPROBE_SYMBOL(_stpx_pe_exec);

static notrace void _stpx_pe_exit(void *data, struct task_struct *task)
{
	struct _stpx_pe_task *p, *t;
	/* (No thread left: the process's begin is not due any more.) */
	bool group_dead = atomic_read(&current->signal->live) == 0;
	unsigned long flags;
	u64 paths = 0;

	raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
	/* A begin that never came is not due any more. */
	t = STPX_PE_FIND(_stpx_pe_pending, current->pid);
	if (t)
		_stpx_pe_drop(_stpx_pe_pending, t);
	/*
	 * The PATHs stay until the main thread is freed (_stpx_pe_free):
	 * threads killed by exit_group reach here in any order, some after
	 * the one that saw no thread left.
	 */
	p = STPX_PE_FIND(_stpx_pe_procs, current->tgid);
	if (p)
		paths = p->paths;
	if (group_dead) {
		t = STPX_PE_FIND(_stpx_pe_pending, -current->tgid);
		if (t)
			_stpx_pe_drop(_stpx_pe_pending, t);
	}
	raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
	if (current->flags & PF_KTHREAD)
		return;
	/*
	 * The process ends with its main thread, as its id does (stap's
	 * rule too); whether the whole group is gone cannot be told here,
	 * since threads exiting at once may each see no thread left.
	 */
	_stpx_pe_fire(current->pid == current->tgid ? STPX_PE_END : STPX_PE_THREAD_END, paths, true, NULL);
}
NOKPROBE_SYMBOL(_stpx_pe_exit);

/*
 * A task's memory goes (an RCU callback): a main thread goes after every
 * other thread of its process has been reaped, so after their exits, and
 * the process's entry goes with it. Only the entry it leads: its id may
 * already lead another process.
 */
static notrace void _stpx_pe_free(void *data, struct task_struct *task)
{
	struct _stpx_pe_task *p;
	unsigned long flags;

	raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
	p = STPX_PE_FIND(_stpx_pe_procs, task->tgid);
	if (p && p->leader == task)
		_stpx_pe_drop(_stpx_pe_procs, p);
	raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
}
NOKPROBE_SYMBOL(_stpx_pe_free);

static struct {
	const char *name;
	void *func;
	bool syscalls;	/* only for system call probes */
	bool exits;	/* only for system call and begin probes */
	struct tracepoint *tp;
} _stpx_pe_tps[] = {
	{ "sched_process_fork", _stpx_pe_fork },
	{ "sched_process_exec", _stpx_pe_exec },
	{ "sched_process_exit", _stpx_pe_exit },
	{ "sched_process_free", _stpx_pe_free },
	{ "sys_exit", _stpx_pe_sys_exit, false, true },
	{ "sys_enter", _stpx_pe_sys_enter, true },
};

static void _stpx_pe_clear(void)
{
	struct _stpx_pe_task *t;
	struct hlist_node *tmp;
	int b;

	hash_for_each_safe(_stpx_pe_procs, b, tmp, t, node)
		_stpx_pe_drop(_stpx_pe_procs, t);
	hash_for_each_safe(_stpx_pe_pending, b, tmp, t, node)
		_stpx_pe_drop(_stpx_pe_pending, t);
}

static void _stpx_process_events_disarm(struct _stpx_proc_event *e, size_t n)
{
	size_t i;
	bool any = false;

	for (i = 0; i < ARRAY_SIZE(_stpx_pe_tps); i++)
		any |= _stpx_tp_unhook(&_stpx_pe_tps[i].tp, _stpx_pe_tps[i].func);
	if (any)
		tracepoint_synchronize_unregister();
	_stpx_pe_clear();
	if (atomic_read(&_stpx_pe_pool.dropped))
		_stpx_report(STPX_MSG_WARNING,
			     "WARNING: process probes lost track of %d processes or threads "
			     "(more than %zu at once; -D STPX_PE_MAX_TASKS=N)",
			     atomic_read(&_stpx_pe_pool.dropped), _stpx_pe_pool.n);
	_stpx_pool_destroy(&_stpx_pe_pool);
	for (i = 0; i < (size_t)_stpx_pe_nslots; i++)
		iput(_stpx_pe_inodes[i]);
	_stpx_pe_nslots = 0;
	_stpx_pe_n = 0;
}

static int _stpx_process_events_arm(struct _stpx_proc_event *e, size_t n)
{
	struct task_struct *g, *t;
	unsigned long flags;
	size_t i;
	int j, rc = 0;

	rc = _stpx_pool_init(&_stpx_pe_pool, sizeof(struct _stpx_pe_task), STPX_PE_MAX_TASKS);
	if (rc)
		return rc;
	_stpx_pe = e;
	_stpx_pe_n = n;
	_stpx_pe_syscalls = _stpx_pe_begins = false;
	for (i = 0; i < n; i++) {
		if (e[i].kind == STPX_PE_SYSCALL || e[i].kind == STPX_PE_SYSCALL_RETURN)
			_stpx_pe_syscalls = true;
		if (e[i].kind == STPX_PE_BEGIN || e[i].kind == STPX_PE_THREAD_BEGIN)
			_stpx_pe_begins = true;
	}
	/* Each PATH once: its slot. */
	for (i = 0; i < n; i++) {
		struct inode *inode;

		e[i].path_slot = -1;
		if (!e[i].path)
			continue;
		inode = _stpx_path_inode(e[i].path);	/* (usyms.c) */
		if (IS_ERR(inode)) {
			rc = PTR_ERR(inode);
			_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s: cannot find %s (rc %d)", e[i].probe->pp,
				     e[i].path, rc);
			goto fail;
		}
		for (j = 0; j < _stpx_pe_nslots && _stpx_pe_inodes[j] != inode; j++)
			;
		if (j < _stpx_pe_nslots) {
			iput(inode);
		} else if (j == STPX_PE_SLOTS) {
			iput(inode);
			_stpx_report(STPX_MSG_ERROR, "ERROR: probe %s: more than %d programs in process(...) probes",
				     e[i].probe->pp, STPX_PE_SLOTS);
			rc = -E2BIG;
			goto fail;
		} else {
			_stpx_pe_inodes[_stpx_pe_nslots++] = inode;
		}
		e[i].path_slot = j;
	}
	/* What every process runs, and the begins now due. */
	rcu_read_lock();
	for_each_process_thread(g, t) {
		u64 paths = 0;

		if (t->flags & PF_KTHREAD)
			continue;
		if (t == g) {
			/* (task_lock outside ours, which an RCU callback takes) */
			task_lock(t);
			paths = _stpx_pe_mm_paths(t->mm);
			task_unlock(t);
		}
		raw_spin_lock_irqsave(&_stpx_pe_lock, flags);
		if (t == g) {
			if ((paths && !_stpx_pe_put_proc(t, paths)) ||
			    (_stpx_pe_begins && !STPX_PE_PUT(_stpx_pe_pending, -t->tgid, 0)))
				rc = -ENOMEM;
		} else if (_stpx_pe_begins && !STPX_PE_PUT(_stpx_pe_pending, t->pid, 0)) {
			rc = -ENOMEM;
		}
		raw_spin_unlock_irqrestore(&_stpx_pe_lock, flags);
	}
	rcu_read_unlock();
	if (rc) {
		_stpx_report(STPX_MSG_ERROR, "ERROR: process probes: more than %zu processes and threads "
			     "(-D STPX_PE_MAX_TASKS=N)", _stpx_pe_pool.n);
		goto fail;
	}
	for (i = 0; i < ARRAY_SIZE(_stpx_pe_tps); i++) {
		struct tracepoint *tp;

		/* (A hook on every system call, only when needed.) */
		if ((_stpx_pe_tps[i].syscalls && !_stpx_pe_syscalls) ||
		    (_stpx_pe_tps[i].exits && !_stpx_pe_syscalls && !_stpx_pe_begins))
			continue;
		tp = _stpx_tp_hook(_stpx_pe_tps[i].name, _stpx_pe_tps[i].func, NULL, "process probes");
		if (IS_ERR(tp)) {
			rc = PTR_ERR(tp);
			goto fail;
		}
		_stpx_pe_tps[i].tp = tp;
	}
	return 0;
fail:
	_stpx_process_events_disarm(e, n);
	return rc;
}
