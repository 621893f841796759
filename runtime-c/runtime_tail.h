/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included last by a generated module: the session callbacks and module
 * init/exit, which use the generated tables and functions:
 *   _stpx_begin_probes[], _stpx_n_begin, _stpx_end_probes[], _stpx_n_end,
 *   _stpx_error_probes[], _stpx_n_error,
 *   _stpx_globals_init(), _stpx_globals_exit(),
 *   _stpx_arm_probes(), _stpx_disarm_probes().
 */
#include "session.c"
#include "module.c"
