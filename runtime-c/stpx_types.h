/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Value types shared by the maps and statistics. Plain C without kernel
 * headers (int64_t comes from the includer), so that the unit tests can
 * build map.c and stat.c in user space (testsuite/unit/kernel_shim.h).
 */
#ifndef _STPX_TYPES_H_
#define _STPX_TYPES_H_

/* Types of map keys and values. */
#define STPX_T_LONG 1
#define STPX_T_STRING 2
#define STPX_T_STAT 3

/* One key of a map lookup: a long or a (NUL-terminated) string. */
union _stpx_key {
	int64_t l;
	const char *s;
};

#endif /* _STPX_TYPES_H_ */
