/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STPX_HAVE_MM_RSS_STAT_PERCPU: an mm's page counters (mm->rss_stat[])
 * are percpu_counters (6.2 on), whose cheap read leaves out the CPUs'
 * pending deltas; before, they are atomic_long_t.
 */
#include <linux/mm_types.h>
#include <linux/percpu_counter.h>

s64 stpx_autoconf_test(struct mm_struct *mm);
s64 stpx_autoconf_test(struct mm_struct *mm)
{
	struct percpu_counter *c = &mm->rss_stat[MM_FILEPAGES];

	return c->count;
}
