// SPDX-License-Identifier: GPL-2.0
/*
 * The "physical limit" for bench/probe-cost: a hand-written kprobe module
 * doing the work of each benchmarked stapx handler (hand_tables.h: stat,
 * count or comm) on every hit of a kprobe on `symbol`, or with ret=1 on
 * every return through a kretprobe on it. Both handlers run with
 * preemption off and never nest on a CPU (a nested hit is counted in
 * nmissed), which hand_tables.h's handlers need.
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

static bool ret;
module_param(ret, bool, 0444);
MODULE_PARM_DESC(ret, "probe the function's returns (a kretprobe)");

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

static int ret_stat(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return hit_stat();
}
NOKPROBE_SYMBOL(ret_stat);

static int ret_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return hit_count();
}
NOKPROBE_SYMBOL(ret_count);

static int ret_comm(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return hit_comm();
}
NOKPROBE_SYMBOL(ret_comm);

static struct kprobe kp;
static struct kretprobe krp;
static enum hand_handler which;

static int __init hand_init(void)
{
	static kprobe_pre_handler_t const pre[] = {
		[HAND_STAT] = pre_stat, [HAND_COUNT] = pre_count, [HAND_COMM] = pre_comm,
	};
	static kretprobe_handler_t const post[] = {
		[HAND_STAT] = ret_stat, [HAND_COUNT] = ret_count, [HAND_COMM] = ret_comm,
	};
	int rc;

	rc = alloc_tables(handler, &which);
	if (rc)
		return rc;
	if (ret) {
		krp.handler = post[which];
		krp.kp.symbol_name = symbol;
		rc = register_kretprobe(&krp);
	} else {
		kp.pre_handler = pre[which];
		kp.symbol_name = symbol;
		rc = register_kprobe(&kp);
	}
	if (rc) {
		pr_err("register_%s(%s): %d\n", ret ? "kretprobe" : "kprobe", symbol, rc);
		free_tables();
	}
	return rc;
}

static void __exit hand_exit(void)
{
	if (ret)
		unregister_kretprobe(&krp);
	else
		unregister_kprobe(&kp);
	print_free_tables(which);
	pr_info("missed %lu\n", ret ? (unsigned long)krp.nmissed : kp.nmissed);
}

module_init(hand_init);
module_exit(hand_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapx bench: hand-written kprobe handlers (the physical limit)");
