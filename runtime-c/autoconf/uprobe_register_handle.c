/* SPDX-License-Identifier: GPL-2.0 */
/*
 * STPX_HAVE_UPROBE_REGISTER_HANDLE: uprobe_register() returns the uprobe
 * it registered (or an ERR_PTR), takes the SDT semaphore's offset itself,
 * and the uprobe is unregistered with uprobe_unregister_nosync() followed
 * by one uprobe_unregister_sync() (the kernels from 6.12 on). Older
 * kernels return an errno and unregister by inode and offset.
 */
#include <linux/uprobes.h>

struct uprobe *stpx_autoconf_test(struct inode *inode, struct uprobe_consumer *uc);
struct uprobe *stpx_autoconf_test(struct inode *inode, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, 0, 0, uc);

	if (!IS_ERR(u))
		uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
	return u;
}
