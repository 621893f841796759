// SPDX-License-Identifier: GPL-2.0
/*
 * The "physical limit" for bench/probe-cost: a hand-written kprobe module
 * doing the work of each benchmarked stapx handler as directly as a kernel
 * programmer would, with no script runtime around it.
 *
 *   handler=stat   a[pid()] <<< 1     per-CPU table keyed by tgid of
 *                                     count/sum/min/max (no lock: only this
 *                                     CPU's handler touches it)
 *   handler=count  n++                one shared counter under a spinlock
 *   handler=comm   a[execname()]++    one shared table keyed by the task's
 *                                     16-byte comm, under a spinlock
 *
 * Tables are open-addressed (linear probing) arrays allocated at load, as
 * big as stapx's default MAXMAPENTRIES, so no hit allocates. A kprobe
 * handler runs with preemption off and never nests on a CPU (a nested hit
 * is counted in nmissed), so the per-CPU table needs no lock and the shared
 * ones a plain spinlock. At unload the module prints what it counted, so
 * the benchmark can check that every call was seen.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define TBL_BITS 11
#define TBL_SIZE (1u << TBL_BITS)

static char *handler = "count";
module_param(handler, charp, 0444);
MODULE_PARM_DESC(handler, "stat, count or comm");

static char *symbol = "__x64_sys_getpid";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe");

/* a[pid()] <<< 1 */
struct stat_ent {
	s64 key;		/* tgid; 0: free slot */
	s64 count, sum, min, max;
};
static DEFINE_PER_CPU(struct stat_ent *, stat_tbl);
static atomic64_t stat_dropped = ATOMIC64_INIT(0);

static int pre_stat(struct kprobe *p, struct pt_regs *regs)
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
NOKPROBE_SYMBOL(pre_stat);

/* n++ */
static DEFINE_RAW_SPINLOCK(count_lock);
static s64 count_n;

static int pre_count(struct kprobe *p, struct pt_regs *regs)
{
	raw_spin_lock(&count_lock);
	count_n++;
	raw_spin_unlock(&count_lock);
	return 0;
}
NOKPROBE_SYMBOL(pre_count);

/* a[execname()]++ */
struct comm_ent {
	u64 key[2];		/* the comm, NUL-padded (as the kernel keeps it) */
	s64 val;
	int used;
};
static DEFINE_RAW_SPINLOCK(comm_lock);
static struct comm_ent *comm_tbl;
static s64 comm_dropped;

static int pre_comm(struct kprobe *p, struct pt_regs *regs)
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
NOKPROBE_SYMBOL(pre_comm);

static struct kprobe kp;

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

static int __init hand_init(void)
{
	int cpu, rc;

	if (!strcmp(handler, "stat")) {
		kp.pre_handler = pre_stat;
		for_each_possible_cpu(cpu) {
			per_cpu(stat_tbl, cpu) = vzalloc(TBL_SIZE * sizeof(struct stat_ent));
			if (!per_cpu(stat_tbl, cpu)) {
				free_tables();
				return -ENOMEM;
			}
		}
	} else if (!strcmp(handler, "count")) {
		kp.pre_handler = pre_count;
	} else if (!strcmp(handler, "comm")) {
		kp.pre_handler = pre_comm;
		comm_tbl = vzalloc(TBL_SIZE * sizeof(struct comm_ent));
		if (!comm_tbl)
			return -ENOMEM;
	} else {
		pr_err("unknown handler=%s\n", handler);
		return -EINVAL;
	}
	kp.symbol_name = symbol;
	rc = register_kprobe(&kp);
	if (rc) {
		pr_err("register_kprobe(%s): %d\n", symbol, rc);
		free_tables();
	}
	return rc;
}

static void __exit hand_exit(void)
{
	int cpu;
	u32 i;

	unregister_kprobe(&kp);
	if (kp.pre_handler == pre_stat) {
		for_each_possible_cpu(cpu) {
			struct stat_ent *t = per_cpu(stat_tbl, cpu);

			for (i = 0; i < TBL_SIZE; i++)
				if (t[i].key)
					pr_info("stat cpu%d %lld %lld\n", cpu, t[i].key, t[i].count);
		}
		pr_info("stat dropped %lld\n", (s64)atomic64_read(&stat_dropped));
	} else if (kp.pre_handler == pre_count) {
		pr_info("count %lld\n", count_n);
	} else {
		for (i = 0; i < TBL_SIZE; i++)
			if (comm_tbl[i].used)
				pr_info("comm %.16s %lld\n", (char *)comm_tbl[i].key, comm_tbl[i].val);
		pr_info("comm dropped %lld\n", comm_dropped);
	}
	pr_info("missed %lu\n", kp.nmissed);
	free_tables();
}

module_init(hand_init);
module_exit(hand_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapx bench: hand-written kprobe handlers (the physical limit)");
