/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.data(ADDRESS | "symbol")[.length(N)].write / .rw: a hardware
 * watchpoint on every CPU (the processor's debug registers, 4 on x86),
 * which runs the probe with the registers of the code that touched the
 * watched bytes.
 */
#include <linux/hw_breakpoint.h>

struct _stpx_watch {
	const struct _stpx_probe *probe;
	unsigned long addr;	/* as written; a symbol's is moved by KASLR */
	int relocate;
	int len;		/* 1, 2, 4 or 8 */
	int rw;			/* reads too, not only writes */
	struct perf_event * __percpu *bp;
};

static notrace void _stpx_watch_hit(struct perf_event *bp, struct perf_sample_data *data, struct pt_regs *regs)
{
	const struct _stpx_watch *w = bp->overflow_handler_context;

	_stpx_run_probe(w->probe, regs);
}

static void _stpx_watch_disarm(struct _stpx_watch *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (w[i].bp)
			unregister_wide_hw_breakpoint(w[i].bp);
		w[i].bp = NULL;
	}
}

static int _stpx_watch_arm(struct _stpx_watch *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct perf_event_attr attr;
		struct perf_event * __percpu *bp;

		hw_breakpoint_init(&attr);
		attr.bp_addr = w[i].addr + (w[i].relocate ? _stpx_kaslr_delta : 0);
		attr.bp_len = w[i].len == 8 ? HW_BREAKPOINT_LEN_8 : w[i].len == 4 ? HW_BREAKPOINT_LEN_4
			    : w[i].len == 2 ? HW_BREAKPOINT_LEN_2 : HW_BREAKPOINT_LEN_1;
		attr.bp_type = w[i].rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
		bp = register_wide_hw_breakpoint(&attr, _stpx_watch_hit, &w[i]);
		if (IS_ERR((void __force *)bp)) {
			int rc = PTR_ERR((void __force *)bp);

			pr_err("watchpoint on %#lx (%d bytes): error %d\n", (unsigned long)attr.bp_addr, w[i].len, rc);
			_stpx_watch_disarm(w, i);
			return rc;
		}
		w[i].bp = bp;
	}
	return 0;
}
