/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stapx runtime proper, included by a generated module after its frame
 * types (union _stpx_frame) and before its globals and probe bodies. The
 * probe families' own files (probes/) follow it, each family naming its
 * own (ProbeFamily::runtime_files in translator/probes/).
 */
#ifndef _STPX_RUNTIME_H_
#define _STPX_RUNTIME_H_

#include "transport/transport.h"
#include "context.h"
#include "lock.h"
#include "stpx_string.h"
#include "target.h"
#include "uaccess.h"
#include "transport/transport.c"
#include "print.c"
#include "session.h"
#include "map.c"
#include "stat.c"
#include "regex.c"
#include "stack.c"
#include "usyms.c"

#endif /* _STPX_RUNTIME_H_ */
