/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stapx transport protocol: the only thing the kernel module and the
 * user-space daemon (stapx-run) share.
 *
 * Files, under debugfs (mounted at /sys/kernel/debug):
 *   stapx/<module>/ctl       control channel, text lines both ways
 *   stapx/<module>/traceN    one relay buffer per possible CPU N
 *
 * Data channel (traceN): a stream of records.  Each record is a
 * struct stpx_rec_hdr followed by hdr.len bytes of script output.  A
 * record never straddles a relay sub-buffer.  Records from all CPUs carry
 * one global sequence number so that the daemon can print them in the
 * order the handlers flushed them.  The daemon maps each traceN buffer
 * (read-only, its whole buf_size) and asks with STPX_TRACE_SPAN where the
 * unread records are; STPX_TRACE_DONE gives a sub-buffer back to the
 * writer.  read() returns the same records (never relay's padding).
 *
 * Control channel (ctl), daemon -> module, one command per write():
 *   "start\n"   run begin probes, then arm all other probes
 *   "start PID\n"  the same, with PID the target process (stap's -c/-x),
 *               what target() returns; without it target() is 0
 *   "stop\n"    disarm probes, run end probes, flush output
 *
 * Control channel, module -> daemon, one message per read(), each a
 * single line "<type> <text>\n" with <type> one of the STPX_MSG_* chars.
 * read() blocks until a message is queued (or returns -EAGAIN with
 * O_NONBLOCK); poll() reports POLLIN when one is queued.
 */
#ifndef _STPX_PROTOCOL_H_
#define _STPX_PROTOCOL_H_

#include <linux/ioctl.h>

#define STPX_DEBUGFS_DIR "stapx"
#define STPX_CTL_FILE "ctl"
#define STPX_TRACE_PREFIX "trace"

#define STPX_REC_MAGIC 0x58505453u /* "STPX" little-endian */
/*
 * A record with this magic instead, and no payload, is switch_file(): the
 * output after it (in sequence order) goes to the next output file.
 */
#define STPX_REC_SWITCH_MAGIC 0x4f505453u /* "STPO" */

struct stpx_rec_hdr {
	unsigned int magic;     /* STPX_REC_MAGIC */
	unsigned int len;       /* payload bytes that follow */
	unsigned long long seq; /* global flush order, starts at 1 */
};

/*
 * ioctl(STPX_TRACE_SPAN): the unread committed bytes of the oldest
 * sub-buffer the daemon has not given back, number seq (counting from 0
 * since the buffer was made), are [subbuf + start, subbuf + end) of the
 * mapping; complete: the writer has moved past it.
 * ioctl(STPX_TRACE_DONE, {seq, pos}), start <= pos <= end: the daemon is
 * done with [subbuf, subbuf + pos) of sub-buffer seq; once complete and
 * done to its end, the sub-buffer goes back to the writer and the next
 * SPAN shows the next. ESTALE: seq is no longer the oldest (a flight
 * recorder's writer dropped it); SPAN again.
 */
struct stpx_trace_span {
	unsigned long long buf_size;    /* bytes to map */
	unsigned long long subbuf_size;
	unsigned long long seq;
	unsigned long long subbuf;      /* the sub-buffer's offset in the map */
	unsigned long long start, end;  /* unread bytes in the sub-buffer */
	unsigned int complete;
	unsigned int pad;
};

struct stpx_trace_done {
	unsigned long long seq, pos;
};

#define STPX_TRACE_SPAN _IOR('x', 1, struct stpx_trace_span)
#define STPX_TRACE_DONE _IOW('x', 2, struct stpx_trace_done)

#define STPX_CMD_START "start"
#define STPX_CMD_STOP "stop"

#define STPX_MSG_STARTED 'S' /* probes armed; text empty */
#define STPX_MSG_START_FAILED 'F' /* text: reason; module is idle */
#define STPX_MSG_ERROR 'E'   /* text: "ERROR: ..." as printed to stderr */
#define STPX_MSG_WARNING 'W' /* text: "WARNING: ..." as printed to stderr */
#define STPX_MSG_EXIT 'X'    /* script asked to exit (exit(), MAXERRORS) */
#define STPX_MSG_SYSTEM 'C'  /* system(): text is a command for /bin/sh -c,
			      * to start in the background (it may hold
			      * newlines: the message is the whole read()) */
#define STPX_MSG_DONE 'D'    /* end probes ran, all output flushed;
			      * text: "<errors> <skipped> <lost-records>" */

/* Longest control message line, including type, space and newline. */
#define STPX_MSG_MAX 512

/*
 * Module parameters the daemon sets when it loads a module: its local
 * time zone (at that moment) as seconds west of UTC, and the zone's name
 * (at most STPX_TZ_NAME_MAX - 1 bytes), e.g.
 *   _stpx_tz_gmtoff=-3600 _stpx_tz_name=CET
 */
#define STPX_PARAM_TZ_GMTOFF "_stpx_tz_gmtoff"
#define STPX_PARAM_TZ_NAME "_stpx_tz_name"
/* And the daemon's real user ID, e.g. _stpx_user_uid=1000 (is_myproc()). */
#define STPX_PARAM_USER_UID "_stpx_user_uid"
#define STPX_TZ_NAME_MAX 32

/*
 * Every module's .modinfo holds "stapx=<version>" (MODULE_INFO): the
 * daemon loads only files that carry it, with the version it speaks, and
 * whose vermagic names the running kernel, so that a file that is not
 * ours, or not for this kernel or this protocol, is refused before the
 * kernel sees it. The version changes with any change above.
 */
#define STPX_MODINFO_TAG "stapx"
#define STPX_PROTOCOL_VERSION "3"

#endif /* _STPX_PROTOCOL_H_ */
