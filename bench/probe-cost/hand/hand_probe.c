// SPDX-License-Identifier: GPL-2.0
/*
 * The "physical limit" for bench/probe-cost: a hand-written kprobe module
 * doing the work of each benchmarked stapx handler (hand_tables.h: stat,
 * count or comm) on every hit of a kprobe on `symbol`. A kprobe handler
 * runs with preemption off and never nests on a CPU (a nested hit is
 * counted in nmissed), which hand_tables.h's handlers need.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>

#include "hand_tables.h"

static char *handler = "count";
module_param(handler, charp, 0444);
MODULE_PARM_DESC(handler, "stat, count or comm");

static char *symbol = "__x64_sys_getpid";
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe");

static int pre_stat(struct kprobe *p, struct pt_regs *regs)
{
	return hit_stat();
}
NOKPROBE_SYMBOL(pre_stat);

static int pre_count(struct kprobe *p, struct pt_regs *regs)
{
	return hit_count();
}
NOKPROBE_SYMBOL(pre_count);

static int pre_comm(struct kprobe *p, struct pt_regs *regs)
{
	return hit_comm();
}
NOKPROBE_SYMBOL(pre_comm);

static struct kprobe kp;
static enum hand_handler which;

static int __init hand_init(void)
{
	static kprobe_pre_handler_t const pre[] = {
		[HAND_STAT] = pre_stat, [HAND_COUNT] = pre_count, [HAND_COMM] = pre_comm,
	};
	int rc;

	rc = alloc_tables(handler, &which);
	if (rc)
		return rc;
	kp.pre_handler = pre[which];
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
	unregister_kprobe(&kp);
	print_free_tables(which);
	pr_info("missed %lu\n", kp.nmissed);
}

module_init(hand_init);
module_exit(hand_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapx bench: hand-written kprobe handlers (the physical limit)");
