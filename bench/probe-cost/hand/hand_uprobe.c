// SPDX-License-Identifier: GPL-2.0
/*
 * The "physical limit" for `bench/probe-cost/run --uprobe`: a hand-written
 * uprobe module doing the work of each benchmarked stapx handler
 * (hand_tables.h: stat, count or comm) on every hit of a uprobe at byte
 * `offset` of the file at `path`, in every process that maps it. The
 * benchmark computes the offset on the host (the function's address less
 * its PT_LOAD segment's p_vaddr, plus its p_offset) and checks that stapx
 * probes the same one.
 *
 * A uprobe handler runs in the task that hit the breakpoint, preemptible
 * and with interrupts on: stat's per-CPU table is updated with preemption
 * off (a task moved to another CPU, or another task run on this one,
 * midway would corrupt it); count and comm take their spinlock, which
 * turns preemption off itself. No interrupt handler touches the tables,
 * so interrupts stay on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>

#include "hand_tables.h"

static char *handler = "count";
module_param(handler, charp, 0444);
MODULE_PARM_DESC(handler, "stat, count or comm");

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the executable or library to probe");

static unsigned long long offset;
module_param(offset, ullong, 0444);
MODULE_PARM_DESC(offset, "the probed instruction's offset in the file");

static int uprobe_stat(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	preempt_disable();
	hit_stat();
	preempt_enable();
	return 0;
}

static int uprobe_count(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	hit_count();
	return 0;
}

static int uprobe_comm(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	hit_comm();
	return 0;
}

static struct uprobe_consumer consumer;
static struct inode *inode;
static enum hand_handler which;

static int __init hand_init(void)
{
	static int (*const handlers[])(struct uprobe_consumer *, struct pt_regs *) = {
		[HAND_STAT] = uprobe_stat, [HAND_COUNT] = uprobe_count, [HAND_COMM] = uprobe_comm,
	};
	struct path p;
	int rc;

	if (!path || !offset) {
		pr_err("path= and offset= are needed\n");
		return -EINVAL;
	}
	rc = alloc_tables(handler, &which);
	if (rc)
		return rc;
	rc = kern_path(path, LOOKUP_FOLLOW, &p);
	if (rc) {
		pr_err("%s: %d\n", path, rc);
		goto err_tables;
	}
	inode = igrab(d_inode(p.dentry));
	path_put(&p);
	if (!inode) {
		rc = -ENOENT;
		goto err_tables;
	}
	consumer.handler = handlers[which];
	rc = uprobe_register(inode, offset, &consumer);
	if (rc) {
		pr_err("uprobe_register(%s, 0x%llx): %d\n", path, offset, rc);
		goto err_inode;
	}
	return 0;

err_inode:
	iput(inode);
err_tables:
	free_tables();
	return rc;
}

static void __exit hand_exit(void)
{
	/* (Returns once no handler runs.) */
	uprobe_unregister(inode, offset, &consumer);
	iput(inode);
	print_free_tables(which);
}

module_init(hand_init);
module_exit(hand_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapx bench: hand-written uprobe handlers (the physical limit)");
