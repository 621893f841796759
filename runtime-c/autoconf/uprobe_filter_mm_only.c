/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STPX_HAVE_UPROBE_FILTER_MM_ONLY: a uprobe consumer's filter is asked
 * about a process only (6.12 on); older kernels also pass an enum
 * uprobe_filter_ctx saying why they ask.
 */
#include <linux/uprobes.h>

static bool stpx_autoconf_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	return uc && mm;
}

struct uprobe_consumer stpx_autoconf_consumer;
struct uprobe_consumer stpx_autoconf_consumer = { .filter = stpx_autoconf_filter };
