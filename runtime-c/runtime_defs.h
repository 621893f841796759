/* SPDX-License-Identifier: GPL-2.0 */
/*
 * First part of the stapx runtime, included by every generated module
 * before its own type declarations: kernel headers, the tunables (each can
 * be overridden with stapx -D NAME=VALUE) and the basic value types.
 *
 * Include order of a generated module:
 *   runtime_defs.h, generated frame types, runtime.h, the probe families'
 *   runtime files (probes/), generated globals,
 *   functions, probe bodies and tables, module.c
 */
#ifndef _STPX_RUNTIME_DEFS_H_
#define _STPX_RUNTIME_DEFS_H_

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <asm/irq_regs.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/timex.h>
#include <linux/version.h>
#ifdef CONFIG_DCACHE_WORD_ACCESS
#include <asm/word-at-a-time.h>	/* map.c: string keys a word at a time */
#endif

/* Tunables, with stap's defaults. */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 128
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXNESTING
#define MAXNESTING STPX_NESTING_DEFAULT
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 1000	/* ns between lock attempts */
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
/* For guru code that tests stap's version: stapx speaks stap 4.8's language. */
#define STAP_VERSION(a, b) (((a) << 8) + (b))
#ifndef STAP_COMPAT_VERSION
#define STAP_COMPAT_VERSION STAP_VERSION(4, 8)
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
/* At most THRESHOLD cycles in handlers per INTERVAL cycles on a CPU (about
 * half of it), else the script is stopped; -DSTP_NO_OVERLOAD lifts it. */
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000ULL
#endif
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000ULL
#endif
/* Deepest kernel backtrace (backtrace(), print_backtrace(), ...). */
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif
#ifndef STPX_PRINT_BUF_SIZE
#define STPX_PRINT_BUF_SIZE 8192
#endif

#if MAXSTRINGLEN < 2
#error "MAXSTRINGLEN must be at least 2"
#endif

#include "stpx_types.h"

#endif /* _STPX_RUNTIME_DEFS_H_ */
