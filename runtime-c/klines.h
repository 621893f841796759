/* SPDX-License-Identifier: GPL-2.0 */
/* The rows of the kernel line table's index (klines.c). */
#ifndef _STPX_KLINES_H_
#define _STPX_KLINES_H_

struct _stpx_kline_block {
	u32 addr;	/* of the block's first row, from STPX_KLINES_BASE */
	u32 data;	/* where its other rows start in _stpx_klines_data */
	u32 file;
	u32 line;	/* 0: no line (past the end of a sequence) */
};

#endif
