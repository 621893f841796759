/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module init and exit. Everything a probe will need is allocated here,
 * before any probe is armed; probes are armed only when the daemon says
 * "start" (session.c).
 */

static int __init _stpx_module_init(void)
{
	int rc;

#ifdef STPX_KASLR_ANCHOR
	/* init_task's link-time address is STPX_KASLR_ANCHOR. */
	_stpx_kaslr_delta = (unsigned long)&init_task - STPX_KASLR_ANCHOR;
#endif
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
