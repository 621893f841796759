/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STPX_HAVE_FTRACE_FILTER_IPS: what the ftrace batch of
 * runtime-c/probes/kprobes.c needs: an ftrace_ops callback that gets
 * struct ftrace_regs (and from it pt_regs when the ops saves them), a
 * filter set from many addresses in one call (ftrace_set_filter_ips()),
 * and the recursion lock that takes the caller's address. Without it
 * (kernels before 5.18, or without DYNAMIC_FTRACE_WITH_REGS) every entry
 * probe is a kprobe.
 */
#include <linux/ftrace.h>

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#error "no saved registers for ftrace callbacks"
#endif

static void stpx_autoconf_hit(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			      struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit >= 0 && ftrace_get_regs(fregs))
		ftrace_test_recursion_unlock(bit);
}

struct ftrace_ops stpx_autoconf_ops;
struct ftrace_ops stpx_autoconf_ops = { .func = stpx_autoconf_hit, .flags = FTRACE_OPS_FL_SAVE_REGS };

int stpx_autoconf_test(unsigned long *ips, unsigned int n);
int stpx_autoconf_test(unsigned long *ips, unsigned int n)
{
	return ftrace_set_filter_ips(&stpx_autoconf_ops, ips, n, 0, 0);
}
