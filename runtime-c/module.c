/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module init and exit. Everything a probe will need is allocated here,
 * before any probe is armed; probes are armed only when the daemon says
 * "start" (session.c).
 */

/*
 * What the script takes at load (its arrays, statistics, foreach buffers,
 * every possible CPU's context and the output's relay buffers) against
 * the memory the kernel has available, and against STP_MAXMEMORY (KiB)
 * when the script sets it: a script that cannot fit is refused here,
 * saying so, rather than by an allocation failing on the way. stapx-run
 * prints the message.
 */
static int __init _stpx_memory_check(void)
{
	u64 need = _stpx_globals_bytes() + (u64)sizeof(struct _stpx_context) * num_possible_cpus() +
		   _stpx_transport_bytes();
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;

#ifdef STP_MAXMEMORY
	if (need > (u64)(STP_MAXMEMORY) * 1024) {
		pr_err("ERROR: the script needs %llu KiB at load (arrays, statistics, %u CPUs' contexts and output buffers), more than STP_MAXMEMORY (%llu KiB)\n",
		       need >> 10, num_possible_cpus(), (u64)(STP_MAXMEMORY));
		return -ENOMEM;
	}
#endif
	if (need > avail) {
		pr_err("ERROR: the script needs %llu MiB at load (arrays, statistics, %u CPUs' contexts and output buffers), more than the %llu MiB of memory available; lower MAXMAPENTRIES or the arrays' declared sizes\n",
		       need >> 20, num_possible_cpus(), avail >> 20);
		return -ENOMEM;
	}
	return 0;
}

static int __init _stpx_module_init(void)
{
	int rc;

#ifdef STPX_KASLR_ANCHOR
	/* init_task's link-time address is STPX_KASLR_ANCHOR. */
	_stpx_kaslr_delta = (unsigned long)&init_task - STPX_KASLR_ANCHOR;
#endif
	rc = _stpx_memory_check();
	if (rc)
		return rc;
	rc = _stpx_contexts_alloc();
	if (rc)
		goto err_contexts;
#ifdef STPX_TIMING
	_stpx_timings = __alloc_percpu(sizeof(struct _stpx_timing) * ARRAY_SIZE(_stpx_probes),
				       __alignof__(struct _stpx_timing));
	rc = -ENOMEM;
	if (!_stpx_timings)
		goto err_timings;
#endif
	rc = _stpx_globals_init();
	if (rc)
		goto err_globals;
	rc = _stpx_transport_init();
	if (rc)
		goto err_transport;
	return 0;

err_transport:
err_globals:
	_stpx_globals_exit();	/* copes with a partial init */
#ifdef STPX_TIMING
	free_percpu(_stpx_timings);
err_timings:
#endif
err_contexts:
	_stpx_contexts_free();
	return rc;
}

static void __exit _stpx_module_exit(void)
{
	/* The daemon died without "stop": disarm, but run no end probes. */
	atomic_set(&_stpx_state, STPX_STATE_STOPPED);
	if (_stpx_armed)
		_stpx_disarm_probes();
	_stpx_transport_exit();
	_stpx_globals_exit();
#ifdef STPX_TIMING
	free_percpu(_stpx_timings);
#endif
	_stpx_contexts_free();
}

module_init(_stpx_module_init);
module_exit(_stpx_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stapx script module");
MODULE_INFO(stapx, STPX_PROTOCOL_VERSION);
