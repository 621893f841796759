/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of the stapx transport (see protocol.h for the wire format).
 *
 * The module's init calls _stpx_transport_init(); its exit calls
 * _stpx_transport_exit().  The transport calls back into the session code
 * (runtime-c/session.c) when the daemon writes a command:
 *   "start [PID]" -> _stpx_session_start(PID or 0); 0 => 'S' message,
 *              else 'F' message
 *   "stop"  -> _stpx_session_stop(); then the transport flushes relay and
 *              queues the 'D' message with the counters it is given by
 *              _stpx_session_counters().
 * Both callbacks run in the writer's process context and may sleep.
 */
#ifndef _STPX_TRANSPORT_H_
#define _STPX_TRANSPORT_H_

#include <linux/types.h>
#include "protocol.h"

/* Provided by the transport. */
int _stpx_transport_init(void);
/* The bytes it will allocate, for the module's check before it loads. */
u64 _stpx_transport_bytes(void);
void _stpx_transport_exit(void);

/*
 * Write one record of script output to this CPU's relay buffer.  Safe in
 * any context, including with interrupts disabled and in kprobe handlers;
 * never sleeps, never allocates.  len must be <= STPX_REC_MAX.  A record
 * that does not fit is dropped and counted; returns 0 or -ENOSPC.
 */
int _stpx_transport_write(const char *data, size_t len);

/*
 * switch_file(): a payload-less record, in the output's sequence, after
 * which the daemon writes to the next output file.  As above.
 */
int _stpx_transport_switch_file(void);

/*
 * Queue a control message (type is an STPX_MSG_* char).  Safe in any
 * context; never sleeps.  When the queue is full the message is dropped
 * and counted.  Readers are woken through irq_work, never directly.
 */
void _stpx_ctl_send(char type, const char *text);

/* Provided by the session code; target: the "start PID" PID, or 0. */
int _stpx_session_start(long target);
void _stpx_session_stop(void);
void _stpx_session_counters(unsigned long *errors, unsigned long *skipped);

/* Largest record payload; the print buffer flushes before exceeding it. */
#ifndef STPX_REC_MAX
#define STPX_REC_MAX 8192
#endif

#endif /* _STPX_TRANSPORT_H_ */
