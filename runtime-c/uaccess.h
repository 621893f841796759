/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the current task's user memory from probe context: never sleeps,
 * never faults pages in (copy_from_user_nofault), so memory that is not
 * present right now reads as a fault.
 */
#ifndef _STPX_UACCESS_H_
#define _STPX_UACCESS_H_

/*
 * Like _stpx_kread_str (target.h), from user memory of the current task. Reads in
 * chunks that never cross a page boundary, so a string that ends just
 * before an unmapped page is still read whole. Never sleeps: a page not
 * present now is a fault (-EFAULT).
 */
static notrace int _stpx_uread_str(char *dst, unsigned long src, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t chunk = min_t(size_t, n - i, PAGE_SIZE - ((src + i) & (PAGE_SIZE - 1)));
		size_t j;

		if (copy_from_user_nofault(dst + i, (const void __user *)(src + i), chunk)) {
			dst[i] = '\0';
			return -EFAULT;
		}
		for (j = 0; j < chunk; j++)
			if (!dst[i + j])
				return 0;
		i += chunk;
	}
	dst[n] = '\0';
	return 0;
}
NOKPROBE_SYMBOL(_stpx_uread_str);

#endif /* _STPX_UACCESS_H_ */
