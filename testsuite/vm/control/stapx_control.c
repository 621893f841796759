// SPDX-License-Identifier: GPL-2.0
/*
 * stapx_control: the guest's coherence control, with no stapx code in it.
 *
 * One kprobe on vfs_read (ftrace-based on Debian's kernels) whose handler
 * bumps a per-CPU counter: the simplest module that arms and disarms a
 * probe on code other CPUs are running.  testsuite/vm/coherence loads and
 * unloads it while every vCPU is busy reading; if the emulator does not keep
 * vCPUs coherent while the kernel patches that code, this oopses (a jump to
 * address 0 in ksys_read) and stapx would be blamed for it.
 *
 * Read-only parameters:
 *   hits      hits on all CPUs since the module was loaded
 *   cpus_hit  how many CPUs have taken at least one hit
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

static DEFINE_PER_CPU(unsigned long, control_hits);

static int control_pre(struct kprobe *p, struct pt_regs *regs)
{
	this_cpu_inc(control_hits);
	return 0;
}
NOKPROBE_SYMBOL(control_pre);

static struct kprobe control_probe = {
	.symbol_name = "vfs_read",
	.pre_handler = control_pre,
};

static int control_get_hits(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(control_hits, cpu);
	return sysfs_emit(buf, "%lu\n", sum);
}

static int control_get_cpus(char *buf, const struct kernel_param *kp)
{
	int cpu, n = 0;

	for_each_possible_cpu(cpu)
		n += per_cpu(control_hits, cpu) != 0;
	return sysfs_emit(buf, "%d\n", n);
}

static const struct kernel_param_ops control_hits_ops = { .get = control_get_hits };
static const struct kernel_param_ops control_cpus_ops = { .get = control_get_cpus };
module_param_cb(hits, &control_hits_ops, NULL, 0444);
module_param_cb(cpus_hit, &control_cpus_ops, NULL, 0444);

static int __init control_init(void)
{
	int ret = register_kprobe(&control_probe);

	if (ret)
		pr_err("register_kprobe(vfs_read) failed: %d\n", ret);
	return ret;
}

static void __exit control_exit(void)
{
	unregister_kprobe(&control_probe);
	pr_info("%lu missed\n", control_probe.nmissed);
}

module_init(control_init);
module_exit(control_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapx guest coherence control: one kprobe, a per-CPU counter");
