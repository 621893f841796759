/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The work of each benchmarked stapx handler, done as directly as a kernel
 * programmer would, with no script runtime around it: shared by the
 * hand-written kprobe module (hand_probe.c) and uprobe module
 * (hand_uprobe.c) of bench/probe-cost, each of which includes it once.
 *
 *   handler=stat   a[pid()] <<< 1     per-CPU table keyed by tgid of
 *                                     count/sum/min/max (no lock: only this
 *                                     CPU's handler touches it)
 *   handler=count  n++                one shared counter under a spinlock
 *   handler=comm   a[execname()]++    one shared table keyed by the task's
 *                                     16-byte comm, under a spinlock
 *
 * Tables are open-addressed (linear probing) arrays allocated at load, as
 * big as stapx's default MAXMAPENTRIES, so no hit allocates. hit_stat()
 * must run with preemption off and must not nest on a CPU (a kprobe
 * handler is both; a uprobe handler is neither, and turns preemption off
 * around it); the shared tables take a plain spinlock. Each returns 0,
 * "carry on" for either kind of probe. At unload the module prints what it
 * counted, so the benchmark can check that every call was seen.
 */
#ifndef HAND_TABLES_H
#define HAND_TABLES_H

#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define TBL_BITS 11
#define TBL_SIZE (1u << TBL_BITS)

enum hand_handler { HAND_STAT, HAND_COUNT, HAND_COMM };

/* a[pid()] <<< 1 */
struct stat_ent {
	s64 key;		/* tgid; 0: free slot */
	s64 count, sum, min, max;
};
static DEFINE_PER_CPU(struct stat_ent *, stat_tbl);
static atomic64_t stat_dropped = ATOMIC64_INIT(0);

static __always_inline int hit_stat(void)
{
	struct stat_ent *t = this_cpu_read(stat_tbl);
	s64 key = task_tgid_nr(current), v = 1;
	u32 i = hash_64(key, TBL_BITS), n;

	for (n = 0; n < TBL_SIZE; n++, i = (i + 1) & (TBL_SIZE - 1)) {
		struct stat_ent *e = &t[i];

		if (e->key == key) {
			e->count++;
			e->sum += v;
			if (v < e->min)
				e->min = v;
			if (v > e->max)
				e->max = v;
			return 0;
		}
		if (!e->key) {
			e->key = key;
			e->count = 1;
			e->sum = e->min = e->max = v;
			return 0;
		}
	}
	atomic64_inc(&stat_dropped);
	return 0;
}

/* n++ */
static DEFINE_RAW_SPINLOCK(count_lock);
static s64 count_n;

static __always_inline int hit_count(void)
{
	raw_spin_lock(&count_lock);
	count_n++;
	raw_spin_unlock(&count_lock);
	return 0;
}

/* a[execname()]++ */
struct comm_ent {
	u64 key[2];		/* the comm, NUL-padded (as the kernel keeps it) */
	s64 val;
	int used;
};
static DEFINE_RAW_SPINLOCK(comm_lock);
static struct comm_ent *comm_tbl;
static s64 comm_dropped;

static __always_inline int hit_comm(void)
{
	u64 k[2];
	u32 i, n;

	BUILD_BUG_ON(sizeof(current->comm) != sizeof(k));
	memcpy(k, current->comm, sizeof(k));
	i = hash_64(k[0] ^ hash_64(k[1], 32), TBL_BITS);
	raw_spin_lock(&comm_lock);
	for (n = 0; n < TBL_SIZE; n++, i = (i + 1) & (TBL_SIZE - 1)) {
		struct comm_ent *e = &comm_tbl[i];

		if (e->used && e->key[0] == k[0] && e->key[1] == k[1]) {
			e->val++;
			goto out;
		}
		if (!e->used) {
			e->key[0] = k[0];
			e->key[1] = k[1];
			e->val = 1;
			e->used = 1;
			goto out;
		}
	}
	comm_dropped++;
out:
	raw_spin_unlock(&comm_lock);
	return 0;
}

static void free_tables(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		vfree(per_cpu(stat_tbl, cpu));
		per_cpu(stat_tbl, cpu) = NULL;
	}
	vfree(comm_tbl);
	comm_tbl = NULL;
}

/* The handler named NAME (-EINVAL if none), its tables allocated. */
static int alloc_tables(const char *name, enum hand_handler *h)
{
	int cpu;

	if (!strcmp(name, "stat")) {
		*h = HAND_STAT;
		for_each_possible_cpu(cpu) {
			per_cpu(stat_tbl, cpu) = vzalloc(TBL_SIZE * sizeof(struct stat_ent));
			if (!per_cpu(stat_tbl, cpu)) {
				free_tables();
				return -ENOMEM;
			}
		}
	} else if (!strcmp(name, "count")) {
		*h = HAND_COUNT;
	} else if (!strcmp(name, "comm")) {
		*h = HAND_COMM;
		comm_tbl = vzalloc(TBL_SIZE * sizeof(struct comm_ent));
		if (!comm_tbl)
			return -ENOMEM;
	} else {
		pr_err("unknown handler=%s\n", name);
		return -EINVAL;
	}
	return 0;
}

/* What handler H counted, to the kernel log; then its tables go. */
static void print_free_tables(enum hand_handler h)
{
	int cpu;
	u32 i;

	if (h == HAND_STAT) {
		for_each_possible_cpu(cpu) {
			struct stat_ent *t = per_cpu(stat_tbl, cpu);

			for (i = 0; i < TBL_SIZE; i++)
				if (t[i].key)
					pr_info("stat cpu%d %lld %lld\n", cpu, t[i].key, t[i].count);
		}
		pr_info("stat dropped %lld\n", (s64)atomic64_read(&stat_dropped));
	} else if (h == HAND_COUNT) {
		pr_info("count %lld\n", count_n);
	} else {
		for (i = 0; i < TBL_SIZE; i++)
			if (comm_tbl[i].used)
				pr_info("comm %.16s %lld\n", (char *)comm_tbl[i].key, comm_tbl[i].val);
		pr_info("comm dropped %lld\n", comm_dropped);
	}
	free_tables();
}

#endif /* HAND_TABLES_H */
