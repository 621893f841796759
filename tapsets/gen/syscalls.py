#!/usr/bin/env python3
"""Generates tapsets/syscalls.stp: syscall.NAME and syscall.NAME.return
probe aliases, their twins in the other families of stap's syscall
tapset (nd_syscall.*, dw_syscall.*, nd1_syscall.*, nd2_syscall.*), the
tracepoint forms tp_syscall.*, syscall_any and the syscall number -> name
table.

    tapsets/gen/syscalls.py [--check] [OUT]
    tapsets/gen/syscalls.py --missing [--strict]

Every syscall.NAME is a kprobe on the kernel's x86_64 entry point
__x64_sys_NAME, so it needs no DWARF. That wrapper receives the user's
registers as `struct pt_regs *regs` in %rdi; the system call's arguments
are regs->di, si, dx, r10, r8, r9. The 32-bit-only names (compat_*,
chown16, setreuid16, sigaction32, ...: a table row whose entry point
starts with __ia32_) probe the ia32 entry points __ia32_sys_NAME and
__ia32_compat_sys_NAME, which get the user's pt_regs the same way, but
whose arguments are the 32-bit ABI's bx, cx, dx, si, di, bp: the
generator reads those with _syscall32_arg* (a second argument-order table
in syscall_args.stp). A 64-bit argument the 32-bit ABI splits over two
registers is put together (_SPLIT64). Variable names follow stap's
syscall tapset as `man tapset::syscalls` lists them.

The twins nd_syscall.NAME, dw_syscall.NAME, nd1_syscall.NAME and
nd2_syscall.NAME are aliases of syscall.NAME: stap's families differ in
how they reach the arguments (DWARF, kprobes, ...); stapx's aliases need
no DWARF in the first place, so every family names the same probe point.
Each family offers the names stap 4.8's does (TWINS lists what it lacks).

tp_syscall.NAME is a real tracepoint probe: raw_syscalls:sys_enter
filtered on $id == the system call's number (x86_64's from unistd_64.txt;
for a 32-bit alias the ia32 number, IA32_NR, and the call must be a 32-bit
one), the arguments read from $regs (the user's pt_regs) with the same
readers, parameterized per variant (class Variant).  tp_syscall.NAME.return
is raw_syscalls:sys_exit filtered on $regs->orig_ax, retval = $ret; what a
kprobe return takes through @entry is read from $regs as well, since the
user registers still hold the arguments at exit (only ax changes).  No
tp_ form: the names stap's tp_syscall lacks too (NO_TP: tux, pipe32, ...,
exit.return and exit_group.return, which never return), and recv and send,
which x86_64 has no number for (its libc calls recvfrom and sendto).

Names with no entry point on x86_64 6.1 (a row's entry point starting with
"-"): where the system call still has a number (bdflush: ia32 134;
sysctl: x86_64 156; sigaction: ia32 67), syscall.NAME is its
tp_syscall.NAME, which fires when a program makes that call (the kernel
answers ENOSYS for the removed ones); the rest, compat_pselect7, pipe32,
pselect7, sysctl32, timerfd, tux and vm86_warning (removed or never in
mainline), are a kprobe on the old function with "?", which resolves to
nothing: `probe syscall.tux {}` fails with "no probes found" as stap's
fails with "no match", and an optional probe (syscall.tux ?) is silently
nothing. Some entry points exist but x86_64 never calls them (no x86_64
number, and the ia32 table uses another): gethostname, recv and send
(__x64_sys_*): their aliases resolve and never fire.

--missing: list, per system call, the variables stap documents that the
table does not produce yet; with --strict, exit 1 if there are any (77,
"skipped", when stap's man pages are not installed).

--check: exit 1 if OUT (default: tapsets/syscalls.stp next to this
script) is not what this script would write (a build test runs it).
"""
import os
import re
import sys

from genfile import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "syscalls.stp")
UNISTD = os.path.join(HERE, "unistd_64.txt")

# Argument kinds: how a raw register becomes script variables, and the
# argstr piece. Each entry: (reader, argstr format, argstr expression
# template, extra variables {suffix: expression template}).
#   {v} is the variable name, {r} the raw register read.
KINDS = {
    "int":    ("_syscall_arg_int({i})", "%d", "{v}", {}),
    "uint":   ("_syscall_arg_uint({i})", "%u", "{v}", {}),
    "long":   ("_syscall_arg({i})", "%d", "{v}", {}),
    "ulong":  ("_syscall_arg({i})", "%u", "{v}", {}),
    "hex":    ("_syscall_arg({i})", "0x%x", "{v}", {}),
    "ptr":    ("_syscall_arg({i})", "%p", "{v}", {}),
    "oct":    ("_syscall_arg_uint({i})", "%#o", "{v}", {}),
    # A user string: NAME quoted, NAME_unquoted, NAME_uaddr.
    "str":    ("user_string_quoted({v}_uaddr)", "%s", "{v}",
               {"_uaddr": "_syscall_arg({i})",
                "_unquoted": "user_string({v}_uaddr, \"\")"}),
    # The same, named as stap names some: NAME the address, NAME_str the
    # quoted string, NAME_str_unquoted the string itself.
    "strs":   ("_syscall_arg({i})", "%s", "{v}_str",
               {"_str": "user_string_quoted({v})", "_str_unquoted": "user_string({v}, \"\")"}),
    "dfd":    ("_syscall_arg_int({i})", "%s", "{v}_str", {"_str": "_dfd_str({v})"}),
    "oflags": ("_syscall_arg_int({i})", "%s", "{v}_str", {"_str": "_sys_open_flag_str({v})"}),
    "atflags": ("_syscall_arg_int({i})", "%s", "{v}_str", {"_str": "_at_flag_str({v})"}),
    "sig":    ("_syscall_arg_int({i})", "%s", "{v}_str", {"_str": "_signal_name({v})"}),
    "signame": ("_syscall_arg_int({i})", "%s", "{v}_name", {"_name": "_signal_name({v})"}),
    "whence": ("_syscall_arg_uint({i})", "%s", "{v}_str", {"_str": "_seek_whence_str({v})"}),
    "prot":   ("_syscall_arg({i})", "%s", "{v}_str", {"_str": "_mprotect_prot_str({v})"}),
    "mflags": ("_syscall_arg({i})", "%s", "{v}_str", {"_str": "_mmap_flags({v})"}),
    "amode":  ("_syscall_arg_int({i})", "%s", "{v}_str", {"_str": "_access_mode_str({v})"}),
    # open's mode: in argstr only when the flags create a file, as strace.
    "cmode":  ("_syscall_arg_uint({i})", None, "_open_mode_str(flags, {v})", {}),
}

# Decoded arguments: an int with NAME_str naming its value (and argstr
# showing the name), from the decoder function in syscall_args.stp.
DECODED = {
    "clockid": ("_clockid_str({v})", "a clock ID; {v}_str names it (CLOCK_MONOTONIC)"),
    "cnsflags": ("_clock_nanosleep_flags_str({v})", "clock_nanosleep flags; {v}_str is TIMER_ABSTIME or 0"),
    "sockfam": ("_sock_family_str({v})", "a protocol family; {v}_str names it (PF_INET)"),
    "socktype": ("_sock_type_str({v})", "a socket type; {v}_str names it and its flags (SOCK_STREAM|SOCK_CLOEXEC)"),
    "sockproto": ("_sock_protocol_str(family, {v})", "a protocol; {v}_str names it for the Internet families (IPPROTO_TCP)"),
    "shuthow": ("_shutdown_how_str({v})", "SHUT_RD, SHUT_WR or SHUT_RDWR, named by {v}_str"),
    "fcntlcmd": ("_fcntl_cmd_str({v})", "a command; {v}_str names it (F_GETFL)"),
    "waitopt": ("_wait4_opt_str({v})", "options; {v}_str names them (WNOHANG|WUNTRACED)"),
    "waitidwhich": ("_waitid_which_str({v})", "an ID type; {v}_str names it (P_PID)"),
    "epollop": ("_epoll_op_str({v})", "an operation; {v}_str names it (EPOLL_CTL_ADD)"),
    "sighow": ("_sigprocmask_how_str({v})", "SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK, named by {v}_str"),
    "rusagewho": ("_rusage_who_str({v})", "whose usage; {v}_str names it (RUSAGE_SELF)"),
    "itimerwhich": ("_itimer_which_str({v})", "a timer; {v}_str names it (ITIMER_REAL)"),
    "priowhich": ("_priority_which_str({v})", "PRIO_PROCESS, PRIO_PGRP or PRIO_USER, named by {v}_str"),
    "rlimres": ("_rlimit_resource_str({v})", "a resource; {v}_str names it (RLIMIT_NOFILE)"),
    "madv": ("_madvice_advice_str({v})", "advice; {v}_str names it (MADV_DONTNEED)"),
    "fadv": ("_fadvice_advice_str({v})", "advice; {v}_str names it (POSIX_FADV_SEQUENTIAL)"),
    "sockflags": ("_sock_flags_str({v})", "flags; {v}_str names them (SOCK_NONBLOCK|SOCK_CLOEXEC)"),
    "msgflags": ("_msg_flags_str({v})", "flags; {v}_str names them (MSG_DONTWAIT|MSG_NOSIGNAL)"),
    "dupflags": ("_dup3_flag_str({v})", "flags; {v}_str names them (O_CLOEXEC)"),
    "efdflags": ("_eventfd_flags_str({v})", "flags; {v}_str names them (EFD_NONBLOCK|EFD_CLOEXEC)"),
    "tfdflags": ("_timerfd_flags_str({v})", "flags; {v}_str names them (TFD_NONBLOCK|TFD_CLOEXEC)"),
    "mfdflags": ("_mfd_flags_str({v})", "flags; {v}_str names them (MFD_CLOEXEC|MFD_ALLOW_SEALING)"),
    "grndflags": ("_getrandom_flags_str({v})", "flags; {v}_str names them (GRND_NONBLOCK)"),
    "mremapflags": ("_mremap_flags_str({v})", "flags; {v}_str names them (MREMAP_MAYMOVE)"),
    "msyncflags": ("_msync_flags_str({v})", "flags; {v}_str names them (MS_ASYNC|MS_INVALIDATE)"),
    "renameflags": ("_renameat2_flags_str({v})", "flags; {v}_str names them (RENAME_NOREPLACE)"),
    "spliceflags": ("_splice_flags_str({v})", "flags; {v}_str names them (SPLICE_F_MOVE|SPLICE_F_MORE)"),
    "umountflags": ("_umountflags_str({v})", "flags; {v}_str names them (MNT_FORCE|MNT_DETACH)"),
    "fallocmode": ("_stp_fallocate_mode_str({v})", "a mode; {v}_str names its flags (FALLOC_FL_KEEP_SIZE)"),
    "inmask": ("_inotify_watch_mask_str({v})", "an event mask; {v}_str names it (IN_MODIFY|IN_CREATE)"),
    "statxmask": ("_statx_mask_str({v})", "a field mask; {v}_str names it (STATX_TYPE|STATX_SIZE)"),
    "mountflags": ("_mountflags_str({v})", "mount flags; {v}_str names them (MS_RDONLY|MS_NOSUID)",
                   "_syscall_arg({i})"),
    "mknodmode": ("_mknod_mode_str({v})", "a file type and mode; {v}_str shows them (S_IFIFO|0644)",
                  "_syscall_arg_uint({i})"),
    "soclevel": ("_sockopt_level_str({v})", "a protocol level; {v}_str names it (SOL_SOCKET)"),
    "sockoptname": ("_sockopt_optname_str(level, {v})", "an option at that level; {v}_str names it (SO_REUSEADDR)"),
    "archcode": ("_arch_prctl_code_str({v})", "a code; {v}_str names it (ARCH_SET_FS)"),
    "bpfcmd": ("_bpf_cmd_str({v})", "a command; {v}_str names it (BPF_MAP_CREATE)"),
    "dmflags": ("_delete_module_flags_str({v})", "flags; {v}_str names them (O_NONBLOCK|O_TRUNC)"),
    "faninit": ("_fanotify_init_flags_str({v})", "flags; {v}_str names them (FAN_CLASS_NOTIF|FAN_CLOEXEC)",
                "_syscall_arg_uint({i})"),
    "fanmark": ("_fanotify_mark_flags_str({v})", "flags; {v}_str names them (FAN_MARK_ADD)",
                "_syscall_arg_uint({i})"),
    "fanmask": ("_fanotify_mask_str({v})", "an event mask; {v}_str names it (FAN_OPEN|FAN_CLOSE_WRITE)",
                "_syscall_arg({i})"),
    "finitflags": ("_finit_module_flags_str({v})", "flags; {v}_str names them (MODULE_INIT_IGNORE_VERMAGIC)"),
    "xattrflags": ("_xattr_flags_str({v})", "flags; {v}_str names them (XATTR_CREATE)"),
    "mpolflags": ("_mempolicy_flags_str({v})", "flags; {v}_str names them (MPOL_F_NODE|MPOL_F_ADDR)",
                  "_syscall_arg({i})"),
    "mpolmode": ("_mempolicy_mode_str({v})", "a policy mode; {v}_str names it (MPOL_BIND)",
                 "_syscall_arg({i})"),
    "mpolmf": ("_mempolicy_mf_flags_str({v})", "flags; {v}_str names them (MPOL_MF_MOVE)"),
    "iopriowhich": ("_ioprio_which_str({v})", "whose priority; {v}_str names it (IOPRIO_WHO_PROCESS)"),
    "ioprio": ("_ioprio_value_str({v})", "a class and level; {v}_str shows them (IOPRIO_CLASS_BE|4)"),
    "kcmptype": ("_kcmp_type_str({v})", "a resource type; {v}_str names it (KCMP_FILE)"),
    "kexecfflags": ("_kexec_file_load_flags_str({v})", "flags; {v}_str names them (KEXEC_FILE_UNLOAD)",
                    "_syscall_arg({i})"),
    "kexecflags": ("_kexec_flags_str({v})", "flags; {v}_str names them (KEXEC_ON_CRASH|KEXEC_ARCH_X86_64)",
                   "_syscall_arg({i})"),
    "membcmd": ("_membarrier_cmd_str({v})", "a command; {v}_str names it (MEMBARRIER_CMD_QUERY)"),
    "mlock2flags": ("_mlock2_flags_str({v})", "flags; {v}_str names them (MLOCK_ONFAULT)"),
    "mlockallflags": ("_mlockall_flags_str({v})", "flags; {v}_str names them (MCL_CURRENT|MCL_FUTURE)"),
    "msgctlcmd": ("_ipc_cmd_str({v}, 0)", "a command; {v}_str names it (IPC_STAT)"),
    "shmctlcmd": ("_ipc_cmd_str({v}, 1)", "a command; {v}_str names it (IPC_RMID)"),
    "msgflg": ("_ipc_flags_str({v}, 0)", "flags; {v}_str names them (IPC_CREAT|0600, IPC_NOWAIT)"),
    "shmgetflg": ("_ipc_flags_str({v}, 1)", "flags; {v}_str names them (IPC_CREAT|0600)"),
    "shmatflg": ("_ipc_flags_str({v}, 2)", "flags; {v}_str names them (SHM_RDONLY)"),
    "semflg": ("_ipc_flags_str({v}, 3)", "flags; {v}_str names them (IPC_CREAT|0600)"),
    "ipckey": ("_ipc_key_str({v})", "a System V IPC key; {v}_str is IPC_PRIVATE or the number"),
    "perfflags": ("_perf_event_open_flags_str({v})", "flags; {v}_str names them (PERF_FLAG_FD_CLOEXEC)",
                  "_syscall_arg({i})"),
    "pkeyacc": ("_pkey_access_str({v})", "access rights; {v}_str names them (PKEY_DISABLE_WRITE)",
                "_syscall_arg({i})"),
    "rwfflags": ("_rwf_flags_str({v})", "flags; {v}_str names them (RWF_HIPRI|RWF_NOWAIT)"),
    "qcmd": ("_quotactl_cmd_str({v})", "a command; {v}_str names it and the quota type (Q_GETQUOTA|USRQUOTA)"),
    "rbmagic": ("_reboot_magic_str({v})", "a magic number; {v}_str names it (LINUX_REBOOT_MAGIC1)"),
    "rbflag": ("_reboot_flag_str({v})", "a command; {v}_str names it (LINUX_REBOOT_CMD_RESTART)"),
    "schedpolicy": ("_sched_policy_str({v})", "a scheduling policy; {v}_str names it (SCHED_OTHER)"),
    "seccompop": ("_seccomp_op_str({v})", "an operation; {v}_str names it (SECCOMP_SET_MODE_FILTER)",
                  "_syscall_arg_uint({i})"),
    "seccompflags": ("_seccomp_flags_str({v})", "flags; {v}_str names them (SECCOMP_FILTER_FLAG_TSYNC)"),
    "nsflags": ("_clone_ns_flags_str({v})", "namespace and clone flags; {v}_str names them (CLONE_NEWUTS)",
                "_syscall_arg({i})"),
    "swapflags": ("_swapon_flags_str({v})", "flags; {v}_str names them (SWAP_FLAG_DISCARD)"),
    "sfrflags": ("_sync_file_range_flags_str({v})", "flags; {v}_str names them (SYNC_FILE_RANGE_WRITE)",
                 "_syscall_arg_uint({i})"),
    "tfdsflags": ("_timerfd_settime_flags_str({v})", "flags; {v}_str names them (TFD_TIMER_ABSTIME)"),
    "uffdflags": ("_userfaultfd_flags_str({v})", "flags; {v}_str names them (O_CLOEXEC|O_NONBLOCK)"),
    "sigmask": ("_stp_sigmask_str({v})", "an old-style signal mask; {v}_str names its signals ([SIGINT|SIGTERM])",
                "_syscall_arg_uint({i})"),
    "sighandler": ("_sighandler_str({v})", "a handler; {v}_str is SIG_DFL, SIG_IGN or the address",
                   "_syscall_arg({i})"),
}
for _kind, (_decoder, _doc, *_reader) in DECODED.items():
    KINDS[_kind] = (_reader[0] if _reader else "_syscall_arg_int({i})", "%s", "{v}_str", {"_str": _decoder})

# What each kind of variable is, for the man pages.
ORDINAL = ["1st", "2nd", "3rd", "4th", "5th", "6th"]
DOC = {
    "int": "the {n} argument of {name}(2), a signed int",
    "uint": "the {n} argument of {name}(2), an unsigned int",
    "long": "the {n} argument of {name}(2), a signed long",
    "ulong": "the {n} argument of {name}(2), an unsigned long",
    "hex": "the {n} argument of {name}(2) (argstr shows it in hex)",
    "ptr": "the {n} argument of {name}(2), a user-space address",
    "oct": "the {n} argument of {name}(2), a mode (argstr shows it in octal)",
    "str": "the string the {n} argument of {name}(2) points to, quoted; "
           "{v}_unquoted is the string itself, {v}_uaddr its address",
    "dfd": "the {n} argument of {name}(2), a directory file descriptor; "
           "{v}_str is AT_FDCWD or the number",
    "oflags": "the {n} argument of {name}(2), open flags; {v}_str decodes them (O_RDONLY|O_CLOEXEC)",
    "atflags": "the {n} argument of {name}(2), AT_* flags; {v}_str decodes them",
    "sig": "the {n} argument of {name}(2), a signal number; {v}_str is its name (SIGTERM)",
    "signame": "the {n} argument of {name}(2), a signal number; {v}_name is its name (SIGTERM)",
    "strs": "the {n} argument of {name}(2), the address of a string; {v}_str is the string, quoted, "
            "{v}_str_unquoted the string itself",
    "whence": "the {n} argument of {name}(2); {v}_str is SEEK_SET, SEEK_CUR, ...",
    "prot": "the {n} argument of {name}(2), memory protection; {v}_str decodes it (PROT_READ|PROT_WRITE)",
    "mflags": "the {n} argument of {name}(2), mapping flags; {v}_str decodes them (MAP_PRIVATE|MAP_ANONYMOUS)",
    "amode": "the {n} argument of {name}(2), an access mode; {v}_str decodes it (R_OK|W_OK)",
    "cmode": "the {n} argument of {name}(2), the mode of a created file (argstr shows it only "
             "when the flags create one)",
}
for _kind, (_decoder, _doc, *_) in DECODED.items():
    DOC[_kind] = "the {n} argument of {name}(2), " + _doc

# name: (summary, kernel symbol or None (= __x64_sys_NAME), return format
# (1 decimal, 2 hex), arguments "kind name" in register order).
# Arguments named "-" are read past (a register stap has no variable for).
SYSCALLS = [
    ("accept", "Accept a connection on a socket", None, 1, "int sockfd, ptr addr_uaddr, ptr addrlen_uaddr"),
    ("accept4", "Accept a connection on a socket", None, 1, "int sockfd, ptr addr_uaddr, ptr addrlen_uaddr, sockflags flags"),
    ("access", "Check user's permissions for a file", None, 1, "str pathname, amode mode"),
    ("acct", "Switch process accounting on or off", None, 1, "str filename"),
    ("add_key", "Add a key to the kernel's key management facility", None, 1, "ptr type_uaddr, ptr description_uaddr, ptr payload_uaddr, ulong plen, int ringid"),
    ("adjtimex", "Tune the kernel clock", None, 1, "ptr buf_uaddr"),
    ("alarm", "Set an alarm clock for delivery of a signal", None, 1, "uint seconds"),
    ("arch_prctl", "Set architecture-specific thread state", None, 1, "archcode code, hex addr"),
    ("bdflush", "Start, flush or tune the buffer-dirty-flush daemon", "-sys_bdflush", 1, "int func, hex data"),
    ("bind", "Bind a name to a socket", None, 1, "int sockfd, ptr my_addr_uaddr, int addrlen"),
    ("bpf", "Perform a command on an extended BPF map or program", None, 1, "bpfcmd cmd, ptr attr_uaddr, uint size"),
    ("brk", "Change data segment size", None, 2, "hex brk"),
    ("capget", "Get process capabilities", None, 1, "ptr header_uaddr, ptr data_uaddr"),
    ("capset", "Set process capabilities", None, 1, "ptr header_uaddr, ptr data_uaddr"),
    ("chdir", "Change working directory", None, 1, "str path"),
    ("chmod", "Change permissions of a file", None, 1, "str path, oct mode"),
    ("chown", "Change ownership of a file", None, 1, "str path, int owner, int group"),
    ("chown16", "Change ownership of a file (16-bit IDs)", "__ia32_sys_chown16", 1, "str path, uint owner, uint group"),
    ("chroot", "Change root directory", None, 1, "str path"),
    ("clock_adjtime", "Tune a clock", None, 1, "clockid clk_id, ptr tx_uaddr"),
    ("clock_getres", "Get the resolution of a clock", None, 1, "clockid clk_id, ptr res_uaddr"),
    ("clock_gettime", "Get the time of a clock", None, 1, "clockid clk_id, ptr tp_uaddr"),
    ("clock_nanosleep", "Sleep on a clock", None, 1, "clockid clk_id, cnsflags flags, ptr req_uaddr, ptr rem_uaddr"),
    ("clock_settime", "Set the time of a clock", None, 1, "clockid clk_id, ptr tp_uaddr"),
    ("clone", "Create a child process", None, 1, "hex clone_flags, ptr stack_start, ptr parent_tid_uaddr, ptr child_tid_uaddr, hex tls"),
    ("close", "Close a file descriptor", None, 1, "int fd"),
    ("close_range", "Close a range of file descriptors", None, 1, "uint fd, uint max_fd, hex flags"),
    ("compat_adjtimex", "Tune the kernel clock (32-bit)", "__ia32_sys_adjtimex_time32", 1, "ptr buf_uaddr"),
    ("compat_clock_nanosleep", "Sleep on a clock (32-bit)", "__ia32_sys_clock_nanosleep_time32", 1, "clockid clk_id, cnsflags flags, ptr req_uaddr, ptr rem_uaddr"),
    ("compat_execve", "Execute a program (32-bit)", "__ia32_compat_sys_execve", 1, "str filename, ptr args_uaddr, ptr env_uaddr"),
    ("compat_execveat", "Execute a program relative to a directory (32-bit)", "__ia32_compat_sys_execveat", 1, "dfd dirfd, str filename, ptr args_uaddr, ptr env_uaddr, atflags flags"),
    ("compat_fadvise64", "Predeclare an access pattern for file data (32-bit)", "__ia32_sys_ia32_fadvise64", 1, "int fd, uint -, uint -, uint len, fadv advice"),
    ("compat_fadvise64_64", "Predeclare an access pattern for file data (32-bit)", "__ia32_sys_ia32_fadvise64_64", 1, "int fd, uint -, uint -, uint -, uint -, fadv advice"),
    ("compat_fallocate", "Manipulate file space (32-bit)", "__ia32_sys_ia32_fallocate", 1, "int fd, fallocmode mode, uint -, uint -, uint -, uint -"),
    ("compat_ftruncate64", "Truncate a file to a specified length (32-bit)", "__ia32_sys_ia32_ftruncate64", 1, "uint fd, uint -, uint -"),
    ("compat_futex", "Fast user-space locking (32-bit)", "__ia32_sys_futex_time32", 1, "ptr futex_uaddr, int op, uint val, ptr utime_uaddr, ptr uaddr2_uaddr, uint val3"),
    ("compat_futimesat", "Change file timestamps relative to a directory (32-bit)", "__ia32_sys_futimesat_time32", 1, "dfd dirfd, str filename, ptr tvp_uaddr"),
    ("compat_getitimer", "Get the value of an interval timer (32-bit)", "__ia32_compat_sys_getitimer", 1, "int which, ptr value_uaddr"),
    ("compat_lookup_dcookie", "Return a directory entry's path (32-bit)", "__ia32_compat_sys_lookup_dcookie", 1, "uint -, uint -, ptr buffer_uaddr, uint len"),
    ("compat_nanosleep", "High-resolution sleep (32-bit)", "__ia32_sys_nanosleep_time32", 1, "ptr req_uaddr, ptr rem_uaddr"),
    ("compat_ppoll", "Wait for some event on a file descriptor (32-bit)", "__ia32_compat_sys_ppoll_time32", 1, "ptr fds_uaddr, uint nfds, ptr tsp, ptr sigmask, uint sigsetsize"),
    ("compat_pselect6", "Synchronous I/O multiplexing (32-bit)", "__ia32_compat_sys_pselect6_time32", 1, "int nfds, ptr readfds, ptr writefds, ptr exceptfds, ptr timeout, ptr sigmask"),
    ("compat_pselect7", "Synchronous I/O multiplexing (32-bit, 7 arguments)", "-compat_sys_pselect7", 1, "int nfds, ptr readfds, ptr writefds, ptr exceptfds, ptr timeout, ptr sigmask"),
    ("compat_readahead", "Initiate file readahead into the page cache (32-bit)", "__ia32_sys_ia32_readahead", 1, "int fd, uint -, uint -, uint count"),
    ("compat_recvmmsg", "Receive multiple messages from a socket (32-bit)", "__ia32_compat_sys_recvmmsg_time32", 1, "int s, ptr mmsg_uaddr, uint vlen, msgflags flags, ptr timeout_uaddr"),
    ("compat_rt_sigprocmask", "Examine and change blocked signals (32-bit)", "__ia32_compat_sys_rt_sigprocmask", 1, "sighow how, ptr set_uaddr, ptr oldset_uaddr, uint sigsetsize"),
    ("compat_select", "Synchronous I/O multiplexing (32-bit)", "__ia32_compat_sys_select", 1, "int n, ptr readfds_uaddr, ptr writefds_uaddr, ptr exceptfds_uaddr, ptr timeout_uaddr"),
    ("compat_setitimer", "Set the value of an interval timer (32-bit)", "__ia32_compat_sys_setitimer", 1, "itimerwhich which, ptr value_uaddr, ptr ovalue_uaddr"),
    ("compat_signalfd", "Create a file descriptor for accepting signals (32-bit)", "__ia32_compat_sys_signalfd", 1, "int ufd, ptr sigmask_uaddr, uint sigsetsize"),
    ("compat_sys_msgctl", "System V message control (32-bit)", "__ia32_compat_sys_msgctl", 1, "int msqid, msgctlcmd cmd, ptr buf_uaddr"),
    ("compat_sys_msgrcv", "Receive a System V message (32-bit)", "__ia32_compat_sys_msgrcv", 1, "int msqid, ptr msgp_uaddr, uint msgsz, int msgtyp, msgflg msgflg"),
    ("compat_sys_msgsnd", "Send a System V message (32-bit)", "__ia32_compat_sys_msgsnd", 1, "int msqid, ptr msgp_uaddr, uint msgsz, msgflg msgflg"),
    ("compat_sys_recvmsg", "Receive a message from a socket (32-bit)", "__ia32_compat_sys_recvmsg", 1, "int s, ptr msg_uaddr, msgflags flags"),
    ("compat_sys_semctl", "System V semaphore control (32-bit)", "__ia32_compat_sys_semctl", 1, "int semid, int semnum, int cmd, uint arg"),
    ("compat_sys_semtimedop", "System V semaphore operations with a timeout (32-bit)", "__ia32_sys_semtimedop", 1, "int semid, ptr sops_uaddr, uint nsops, ptr timeout_uaddr"),
    ("compat_sys_sendmsg", "Send a message on a socket (32-bit)", "__ia32_compat_sys_sendmsg", 1, "int s, ptr msg_uaddr, msgflags flags"),
    ("compat_sys_shmat", "Attach a System V shared memory segment (32-bit)", "__ia32_compat_sys_shmat", 1, "int shmid, ptr shmaddr_uaddr, shmatflg shmflg"),
    ("compat_sys_shmctl", "System V shared memory control (32-bit)", "__ia32_compat_sys_shmctl", 1, "int shmid, shmctlcmd cmd, ptr buf_uaddr"),
    ("compat_sys_utimes", "Change file access and modification times (32-bit)", "__ia32_sys_utimes_time32", 1, "str filename, ptr timeval"),
    ("compat_truncate64", "Truncate a file to a specified length (32-bit)", "__ia32_sys_ia32_truncate64", 1, "str path, uint -, uint -"),
    ("compat_utime", "Change file access and modification times (32-bit)", "__ia32_sys_utime32", 1, "str filename, ptr buf_uaddr"),
    ("compat_utimensat", "Change file timestamps with nanosecond precision (32-bit)", "__ia32_sys_utimensat_time32", 1, "dfd dfd, str filename, ptr tsp_uaddr, atflags flags"),
    ("compat_vmsplice", "Splice user pages into a pipe (32-bit)", "__ia32_sys_vmsplice", 1, "int fd, ptr iov, uint nr_segs, spliceflags flags"),
    ("connect", "Initiate a connection on a socket", None, 1, "int sockfd, ptr serv_addr_uaddr, int addrlen"),
    ("copy_file_range", "Copy a range of data from one file to another", None, 1, "int fd_in, ptr off_in, int fd_out, ptr off_out, ulong len, uint flags"),
    ("creat", "Create a file", None, 1, "str pathname, oct mode"),
    ("delete_module", "Unload a kernel module", None, 1, "str name_user, dmflags flags"),
    ("dup", "Duplicate a file descriptor", None, 1, "uint oldfd"),
    ("dup2", "Duplicate a file descriptor", None, 1, "uint oldfd, uint newfd"),
    ("dup3", "Duplicate a file descriptor", None, 1, "uint oldfd, uint newfd, dupflags flags"),
    ("epoll_create", "Open an epoll file descriptor", None, 1, "int size"),
    ("epoll_create1", "Open an epoll file descriptor", None, 1, "hex flags"),
    ("epoll_ctl", "Control interface for an epoll file descriptor", None, 1, "int epfd, epollop op, int fd, ptr event_uaddr"),
    ("epoll_pwait", "Wait for an I/O event on an epoll file descriptor", None, 1, "int epfd, ptr events_uaddr, int maxevents, int timeout, ptr sigmask_uaddr, ulong sigsetsize"),
    ("epoll_wait", "Wait for an I/O event on an epoll file descriptor", None, 1, "int epfd, ptr events_uaddr, int maxevents, int timeout"),
    ("eventfd", "Create a file descriptor for event notification", None, 1, "uint count"),
    ("eventfd2", "Create a file descriptor for event notification", None, 1, "uint count, efdflags flags"),
    ("execve", "Execute a program", None, 1, "str filename, ptr args_uaddr, ptr env_uaddr"),
    ("execveat", "Execute a program relative to a directory", None, 1, "dfd dirfd, str filename, ptr args_uaddr, ptr env_uaddr, atflags flags"),
    ("exit", "Exit the current thread", None, 1, "int status"),
    ("exit_group", "Exit all threads in a process", None, 1, "int status"),
    ("faccessat", "Check user's permissions for a file", None, 1, "dfd dirfd, str pathname, amode mode"),
    ("faccessat2", "Check user's permissions for a file", None, 1, "dfd dirfd, str pathname, amode mode, atflags flags"),
    ("fadvise64", "Predeclare an access pattern for file data", None, 1, "int fd, long offset, long len, fadv advice"),
    ("fadvise64_64", "Predeclare an access pattern for file data (32-bit)", "__ia32_sys_ia32_fadvise64_64", 1, "int fd, uint -, uint -, uint -, uint -, fadv advice"),
    ("fallocate", "Manipulate file space", None, 1, "int fd, fallocmode mode, long offset, long len"),
    ("fanotify_init", "Create and initialize a fanotify group", None, 1, "faninit flags, oflags event_f_flags"),
    ("fanotify_mark", "Add, remove or modify a fanotify mark", None, 1, "int fanotify_fd, fanmark flags, fanmask mask, dfd dirfd, str pathname"),
    ("fchdir", "Change working directory", None, 1, "uint fd"),
    ("fchmod", "Change permissions of a file", None, 1, "uint fildes, oct mode"),
    ("fchmodat", "Change permissions of a file", None, 1, "dfd dirfd, str pathname, oct mode"),
    ("fchown", "Change ownership of a file", None, 1, "uint fd, int owner, int group"),
    ("fchown16", "Change ownership of a file (16-bit IDs)", "__ia32_sys_fchown16", 1, "uint fd, uint owner, uint group"),
    ("fchownat", "Change ownership of a file", None, 1, "dfd dirfd, str pathname, int owner, int group, atflags flags"),
    ("fcntl", "Manipulate a file descriptor", None, 1, "uint fd, fcntlcmd cmd, long arg"),
    ("fdatasync", "Synchronize a file's data with storage", None, 1, "uint fd"),
    ("fgetxattr", "Get an extended attribute value", None, 1, "int filedes, str name_str, ptr value_uaddr, ulong size"),
    ("finit_module", "Load a kernel module from a file descriptor", None, 1, "int fd, str uargs, finitflags flags"),
    ("flistxattr", "List extended attribute names", None, 1, "int filedes, ptr list_uaddr, ulong size"),
    ("flock", "Apply or remove an advisory lock on an open file", None, 1, "uint fd, uint operation"),
    ("fork", "Create a child process", None, 1, ""),
    ("fremovexattr", "Remove an extended attribute", None, 1, "int filedes, str name_str"),
    ("fsetxattr", "Set an extended attribute value", None, 1, "int filedes, str name_str, ptr value_uaddr, ulong size, xattrflags flags"),
    ("fstat", "Get file status", "__x64_sys_newfstat", 1, "uint filedes, ptr buf_uaddr"),
    ("fstatat", "Get file status", "__x64_sys_newfstatat", 1, "dfd dirfd, str path, ptr buf_uaddr, atflags flags"),
    ("fstatfs", "Get file system statistics", None, 1, "uint fd, ptr buf_uaddr"),
    ("fstatfs64", "Get file system statistics (32-bit)", "__ia32_compat_sys_fstatfs64", 1, "uint fd, uint sz, ptr buf_uaddr"),
    ("fsync", "Synchronize a file's state with storage", None, 1, "uint fd"),
    ("ftruncate", "Truncate a file to a specified length", None, 1, "uint fd, ulong length"),
    ("ftruncate64", "Truncate a file to a specified length (32-bit)", "__ia32_sys_ia32_ftruncate64", 1, "uint fd, uint -, uint -"),
    ("futex", "Fast user-space locking", None, 1, "ptr futex_uaddr, int op, uint val, ptr utime_uaddr, ptr uaddr2_uaddr, uint val3"),
    ("futimesat", "Change file timestamps relative to a directory", None, 1, "dfd dirfd, str filename, ptr tvp_uaddr"),
    ("get_mempolicy", "Retrieve the NUMA memory policy of a thread", None, 1, "ptr policy_uaddr, ptr nmask_uaddr, ulong maxnode, hex addr, mpolflags flags"),
    ("get_robust_list", "Get the robust futex list", None, 1, "int pid, ptr list_head_uaddr, ptr len_uaddr"),
    ("get_thread_area", "Get a thread-local storage area", None, 1, "ptr u_info_uaddr"),
    ("getcpu", "Determine the CPU and NUMA node the thread runs on", None, 1, "ptr cpu_uaddr, ptr node_uaddr, ptr tcache_uaddr"),
    ("getcwd", "Get current working directory", None, 1, "ptr buf_uaddr, ulong size"),
    ("getdents", "Get directory entries", "__x64_sys_getdents64", 1, "uint fd, ptr dirp_uaddr, uint count"),
    ("getegid", "Get the effective group ID", None, 1, ""),
    ("geteuid", "Get the effective user ID", None, 1, ""),
    ("getgid", "Get the real group ID", None, 1, ""),
    ("getgroups", "Get the supplementary group IDs", None, 1, "int size, ptr list_uaddr"),
    ("gethostname", "Get the host name", None, 1, "ptr name_uaddr, int len"),
    ("getitimer", "Get the value of an interval timer", None, 1, "itimerwhich which, ptr value_uaddr"),
    ("getpeername", "Get the name of a connected peer socket", None, 1, "int s, ptr name_uaddr, ptr namelen_uaddr"),
    ("getpgid", "Get the process group ID of a process", None, 1, "int pid"),
    ("getpgrp", "Get the process group ID of the calling process", None, 1, ""),
    ("getpid", "Get the process ID", None, 1, ""),
    ("getppid", "Get the parent process ID", None, 1, ""),
    ("getpriority", "Get the scheduling priority", None, 1, "priowhich which, int who"),
    ("getrandom", "Obtain a series of random bytes", None, 1, "ptr buf_uaddr, ulong count, grndflags flags"),
    ("getresgid", "Get the real, effective and saved group IDs", None, 1, "ptr rgid_uaddr, ptr egid_uaddr, ptr sgid_uaddr"),
    ("getresuid", "Get the real, effective and saved user IDs", None, 1, "ptr ruid_uaddr, ptr euid_uaddr, ptr suid_uaddr"),
    ("getrlimit", "Get resource limits", None, 1, "rlimres resource, ptr rlim_uaddr"),
    ("getrusage", "Get resource usage", None, 1, "rusagewho who, ptr usage_uaddr"),
    ("getsid", "Get the session ID", None, 1, "int pid"),
    ("getsockname", "Get a socket's name", None, 1, "int s, ptr name_uaddr, ptr namelen_uaddr"),
    ("getsockopt", "Get options on a socket", None, 1, "int fd, soclevel level, sockoptname optname, ptr optval_uaddr, ptr optlen_uaddr"),
    ("gettid", "Get the thread ID", None, 1, ""),
    ("gettimeofday", "Get the time of day", None, 1, "ptr tv_uaddr, ptr tz_uaddr"),
    ("getuid", "Get the real user ID", None, 1, ""),
    ("getxattr", "Get an extended attribute value", None, 1, "str path, str name_str, ptr value_uaddr, ulong size"),
    ("init_module", "Load a kernel module", None, 1, "ptr umod_uaddr, ulong len, str uargs"),
    ("inotify_add_watch", "Add a watch to an initialized inotify instance", None, 1, "int fd, str path, inmask mask"),
    ("inotify_init", "Initialize an inotify instance", None, 1, ""),
    ("inotify_init1", "Initialize an inotify instance", None, 1, "hex flags"),
    ("inotify_rm_watch", "Remove a watch from an inotify instance", None, 1, "int fd, int wd"),
    ("io_cancel", "Cancel an outstanding asynchronous I/O operation", None, 1, "ulong ctx_id, ptr iocb_uaddr, ptr result_uaddr"),
    ("io_destroy", "Destroy an asynchronous I/O context", None, 1, "ulong ctx"),
    ("io_getevents", "Read asynchronous I/O events from the completion queue", None, 1, "ulong ctx_id, long min_nr, long nr, ptr events_uaddr, ptr timeout_uaddr"),
    ("io_setup", "Create an asynchronous I/O context", None, 1, "uint maxevents, ptr ctxp_uaddr"),
    ("io_submit", "Submit asynchronous I/O blocks for processing", None, 1, "ulong ctx_id, long nr, ptr iocbpp_uaddr"),
    ("ioctl", "Control a device", None, 1, "uint fd, uint request, ptr argp"),
    ("ioperm", "Set port input/output permissions", None, 1, "hex from, ulong num, int turn_on"),
    ("iopl", "Change the I/O privilege level", None, 1, "uint level"),
    ("ioprio_get", "Get the I/O scheduling class and priority", None, 1, "iopriowhich which, int who"),
    ("ioprio_set", "Set the I/O scheduling class and priority", None, 1, "iopriowhich which, int who, ioprio ioprio"),
    ("kcmp", "Compare two processes' kernel resources", None, 1, "int pid1, int pid2, kcmptype type, ulong idx1, ulong idx2"),
    ("kexec_file_load", "Load a new kernel for later execution", None, 1, "int kernel_fd, int initrd_fd, ulong cmdline_len, str cmdline, kexecfflags flags"),
    ("kexec_load", "Load a new kernel for later execution", None, 1, "hex entry, ulong nr_segments, ptr segments_uaddr, kexecflags flags"),
    ("keyctl", "Manipulate the kernel's key management facility", None, 1, "int option, ulong arg2, ulong arg3, ulong arg4, ulong arg5"),
    ("kill", "Send a signal to a process", None, 1, "int pid, signame sig"),
    ("lchown", "Change ownership of a file", None, 1, "str path, int owner, int group"),
    ("lchown16", "Change ownership of a file (16-bit IDs)", "__ia32_sys_lchown16", 1, "str path, uint owner, uint group"),
    ("lgetxattr", "Get an extended attribute value", None, 1, "str path, str name_str, ptr value_uaddr, ulong size"),
    ("link", "Make a new name for a file", None, 1, "str oldpath, str newpath"),
    ("linkat", "Make a new name for a file", None, 1, "dfd olddirfd, str oldpath, dfd newdirfd, str newpath, atflags flags"),
    ("listen", "Listen for connections on a socket", None, 1, "int sockfd, int backlog"),
    ("listxattr", "List extended attribute names", None, 1, "str path, ptr list_uaddr, ulong size"),
    ("llistxattr", "List extended attribute names", None, 1, "str path, ptr list_uaddr, ulong size"),
    ("llseek", "Reposition the read/write file offset (32-bit)", "__ia32_sys_llseek", 1, "uint fd, uint offset_high, uint offset_low, ptr result_uaddr, whence whence"),
    ("lookup_dcookie", "Return a directory entry's path", None, 1, "hex cookie, ptr buffer_uaddr, ulong len"),
    ("lremovexattr", "Remove an extended attribute", None, 1, "str path, str name_str"),
    ("lseek", "Reposition the read/write file offset", None, 1, "uint fildes, long offset, whence whence"),
    ("lsetxattr", "Set an extended attribute value", None, 1, "str path, str name_str, ptr value_uaddr, ulong size, xattrflags flags"),
    ("lstat", "Get file status", "__x64_sys_newlstat", 1, "str path, ptr buf_uaddr"),
    ("madvise", "Give advice about use of memory", None, 1, "hex start, ulong length, madv advice"),
    ("mbind", "Set the memory policy for a memory range", None, 1, "hex start, ulong len, mpolmode mode, ptr nmask_uaddr, ulong maxnode, mpolmf flags"),
    ("membarrier", "Issue memory barriers on a set of threads", None, 1, "membcmd cmd, uint flags"),
    ("memfd_create", "Create an anonymous file", None, 1, "str uname, mfdflags flags"),
    ("memfd_secret", "Create an anonymous RAM-based file to access secret memory regions", None, 1, "dupflags flags"),
    ("migrate_pages", "Move all pages of a process to other nodes", None, 1, "int pid, ulong maxnode, ptr old_nodes, ptr new_nodes"),
    ("mincore", "Determine whether pages are resident in memory", None, 1, "hex start, ulong length, ptr vec_uaddr"),
    ("mkdir", "Create a directory", None, 1, "str pathname, oct mode"),
    ("mkdirat", "Create a directory", None, 1, "dfd dirfd, str pathname, oct mode"),
    ("mknod", "Create a special or ordinary file", None, 1, "str pathname, mknodmode mode, uint dev"),
    ("mknodat", "Create a special or ordinary file", None, 1, "dfd dirfd, str pathname, mknodmode mode, uint dev"),
    ("mlock", "Lock memory", None, 1, "hex addr, ulong len"),
    ("mlock2", "Lock memory", None, 1, "hex addr, ulong len, mlock2flags flags"),
    ("mlockall", "Lock all of the calling process's memory", None, 1, "mlockallflags flags"),
    ("mmap2", "Map files or devices into memory", "__x64_sys_mmap", 2, "hex start, ulong length, prot prot, mflags flags, int fd, long pgoffset"),
    ("modify_ldt", "Get or set a per-process local descriptor table entry", None, 1, "int func, ptr ptr_uaddr, ulong bytecount"),
    ("mount", "Mount a file system", None, 1, "str source, str target, str filesystemtype, mountflags mountflags, ptr data_uaddr"),
    ("move_pages", "Move individual pages of a process to another node", None, 1, "int pid, ulong nr_pages, ptr pages, ptr nodes, ptr status, mpolmf flags"),
    ("mprotect", "Set protection on a region of memory", None, 1, "hex addr, ulong len, prot prot"),
    ("mq_getsetattr", "Get or set message queue attributes", None, 1, "int mqdes, ptr u_mqstat_uaddr, ptr u_omqstat_uaddr"),
    ("mq_notify", "Register for notification when a message is available", None, 1, "int mqdes, ptr notification_uaddr"),
    ("mq_open", "Open a message queue", None, 1, "str filename, oflags oflag, oct mode, ptr u_attr_uaddr"),
    ("mq_timedreceive", "Receive a message from a message queue", None, 1, "int mqdes, ptr msg_ptr_uaddr, ulong msg_len, ptr msg_prio_uaddr, ptr abs_timeout_uaddr"),
    ("mq_timedsend", "Send a message to a message queue", None, 1, "int mqdes, ptr msg_ptr_uaddr, ulong msg_len, uint msg_prio, ptr abs_timeout_uaddr"),
    ("mq_unlink", "Remove a message queue", None, 1, "str u_name"),
    ("mremap", "Remap a virtual memory address", None, 2, "hex old_address, ulong old_size, ulong new_size, mremapflags flags, hex new_address"),
    ("msgctl", "System V message control", None, 1, "int msqid, msgctlcmd cmd, ptr buf_uaddr"),
    ("msgget", "Get a System V message queue identifier", None, 1, "ipckey key, msgflg msgflg"),
    ("msgrcv", "Receive a System V message", None, 1, "int msqid, ptr msgp_uaddr, ulong msgsz, long msgtyp, msgflg msgflg"),
    ("msgsnd", "Send a System V message", None, 1, "int msqid, ptr msgp_uaddr, ulong msgsz, msgflg msgflg"),
    ("msync", "Synchronize a file with a memory map", None, 1, "hex start, ulong length, msyncflags flags"),
    ("munlock", "Unlock memory", None, 1, "hex addr, ulong len"),
    ("munlockall", "Unlock all of the calling process's memory", None, 1, ""),
    ("munmap", "Unmap files or devices from memory", None, 1, "hex start, ulong length"),
    ("name_to_handle_at", "Obtain a handle for a pathname", None, 1, "dfd dfd, str pathname, ptr handle_uaddr, ptr mnt_id_uaddr, atflags flags"),
    ("nanosleep", "High-resolution sleep", None, 1, "ptr req_uaddr, ptr rem_uaddr"),
    ("ni_syscall", "A system call number the kernel does not implement", None, 1, ""),
    ("nice", "Change process priority (32-bit)", "__ia32_sys_nice", 1, "int inc"),
    ("open", "Open a file", None, 1, "str filename, oflags flags, cmode mode"),
    ("open_by_handle_at", "Open a file by its handle", None, 1, "dfd mount_dfd, ptr handle_uaddr, oflags flags"),
    ("openat", "Open a file", None, 1, "dfd dfd, str filename, oflags flags, cmode mode"),
    ("pause", "Wait for a signal", None, 1, ""),
    ("perf_event_open", "Set up performance monitoring", None, 1, "ptr attr_uaddr, int pid, int cpu, int group_fd, perfflags flags"),
    ("personality", "Set the process execution domain", None, 1, "uint persona"),
    ("pipe", "Create a pipe", None, 1, "ptr fildes_uaddr"),
    ("pipe2", "Create a pipe", None, 1, "ptr fildes_uaddr, int flags"),
    ("pipe32", "Create a pipe (32-bit, old entry point)", "-sys32_pipe", 1, "ptr fildes_uaddr"),
    ("pivot_root", "Change the root mount", None, 1, "str new_root_str, str old_root_str"),
    ("pkey_alloc", "Allocate a protection key", None, 1, "ulong flags, pkeyacc init_val"),
    ("pkey_free", "Free a protection key", None, 1, "int pkey"),
    ("pkey_mprotect", "Set protection on a region of memory with a protection key", None, 1, "hex addr, ulong len, prot prot, int pkey"),
    ("poll", "Wait for some event on a file descriptor", None, 1, "ptr ufds_uaddr, uint nfds, int timeout"),
    ("ppoll", "Wait for some event on a file descriptor", None, 1, "ptr fds_uaddr, uint nfds, ptr tsp, ptr sigmask, ulong sigsetsize"),
    ("prctl", "Operations on a process", None, 1, "int option, ulong arg2, ulong arg3, ulong arg4, ulong arg5"),
    ("pread", "Read from a file descriptor at a given offset", "__x64_sys_pread64", 1, "uint fd, ptr buf_uaddr, ulong count, long offset"),
    ("preadv", "Read data into multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count, long offset"),
    ("preadv2", "Read data into multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count, long offset, long -, rwfflags flags"),
    ("prlimit64", "Get or set resource limits", None, 1, "int pid, rlimres resource, ptr new_rlim_uaddr, ptr old_rlim_uaddr"),
    ("process_vm_readv", "Read from another process's memory", None, 1, "int pid, ptr local_iov_uaddr, ulong liovcnt, ptr remote_iov_uaddr, ulong riovcnt, ulong flags"),
    ("process_vm_writev", "Write to another process's memory", None, 1, "int pid, ptr local_iov_uaddr, ulong liovcnt, ptr remote_iov_uaddr, ulong riovcnt, ulong flags"),
    ("pselect6", "Synchronous I/O multiplexing", None, 1, "int nfds, ptr readfds, ptr writefds, ptr exceptfds, ptr timeout, ptr sigmask"),
    ("pselect7", "Synchronous I/O multiplexing (7 arguments)", "-sys_pselect7", 1, "int nfds, ptr readfds, ptr writefds, ptr exceptfds, ptr timeout, ptr sigmask"),
    ("ptrace", "Process trace", None, 1, "long request, int pid, hex addr, hex data"),
    ("pwrite", "Write to a file descriptor at a given offset", "__x64_sys_pwrite64", 1, "uint fd, ptr buf_uaddr, ulong count, long offset"),
    ("pwrite32", "Write to a file descriptor at a given offset (32-bit)", "__ia32_sys_ia32_pwrite64", 1, "uint fd, ptr buf_uaddr, uint count, uint -, uint -"),
    ("pwritev", "Write data from multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count, long offset"),
    ("pwritev2", "Write data from multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count, long offset, long -, rwfflags flags"),
    ("quotactl", "Manipulate disk quotas", None, 1, "qcmd cmd, strs special, uint id, ptr addr_uaddr"),
    ("read", "Read from a file descriptor", None, 1, "uint fd, ptr buf_uaddr, ulong count"),
    ("readahead", "Initiate file readahead into the page cache", None, 1, "int fd, long offset, ulong count"),
    ("readdir", "Read a directory entry (32-bit)", "__ia32_compat_sys_old_readdir", 1, "uint fd, ptr dirent, uint count"),
    ("readlink", "Read the value of a symbolic link", None, 1, "str path, ptr buf_uaddr, int bufsiz"),
    ("readlinkat", "Read the value of a symbolic link", None, 1, "dfd dfd, str path, ptr buf_uaddr, int bufsiz"),
    ("readv", "Read data into multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count"),
    ("reboot", "Reboot or enable/disable Ctrl-Alt-Del", None, 1, "rbmagic magic, rbmagic magic2, rbflag flag, ptr arg_uaddr"),
    ("recv", "Receive a message from a socket", None, 1, "int s, ptr buf_uaddr, ulong len, msgflags flags"),
    ("recvfrom", "Receive a message from a socket", None, 1, "int s, ptr buf_uaddr, ulong len, msgflags flags, ptr addr_uaddr, ptr addrlen_uaddr"),
    ("recvmmsg", "Receive multiple messages from a socket", None, 1, "int s, ptr mmsg_uaddr, uint vlen, msgflags flags, ptr timeout_uaddr"),
    ("recvmsg", "Receive a message from a socket", None, 1, "int s, ptr msg_uaddr, msgflags flags"),
    ("remap_file_pages", "Create a nonlinear file mapping", None, 1, "hex start, ulong size, prot prot, ulong pgoff, mflags flags"),
    ("removexattr", "Remove an extended attribute", None, 1, "str path, str name_str"),
    ("rename", "Change the name or location of a file", None, 1, "str oldpath, str newpath"),
    ("renameat", "Change the name or location of a file", None, 1, "dfd olddfd, strs oldname, dfd newdfd, strs newname"),
    ("renameat2", "Change the name or location of a file", None, 1, "dfd olddfd, strs oldname, dfd newdfd, strs newname, renameflags flags"),
    ("request_key", "Request a key from the kernel's key management facility", None, 1, "strs type, strs description, ptr callout_info_uaddr, int destringid"),
    ("restart_syscall", "Restart a system call after interruption by a stop signal", None, 1, ""),
    ("rmdir", "Delete a directory", None, 1, "str pathname"),
    ("rt_sigaction", "Examine and change a signal action", None, 1, "sig sig, ptr act_uaddr, ptr oact_uaddr, ulong sigsetsize"),
    ("rt_sigaction32", "Examine and change a signal action (32-bit)", "__ia32_compat_sys_rt_sigaction", 1, "sig sig, ptr act_uaddr, ptr oact_uaddr, uint sigsetsize"),
    ("rt_sigpending", "Examine pending signals", None, 1, "ptr set_uaddr, ulong sigsetsize"),
    ("rt_sigprocmask", "Examine and change blocked signals", None, 1, "sighow how, ptr set_uaddr, ptr oldset_uaddr, ulong sigsetsize"),
    ("rt_sigqueueinfo", "Queue a signal and data", None, 1, "int pid, signame sig, ptr uinfo_uaddr"),
    ("rt_sigreturn", "Return from a signal handler", None, 1, ""),
    ("rt_sigsuspend", "Wait for a signal", None, 1, "ptr set_uaddr, ulong sigsetsize"),
    ("rt_sigtimedwait", "Synchronously wait for queued signals", None, 1, "ptr uthese_uaddr, ptr uinfo_uaddr, ptr uts_uaddr, ulong sigsetsize"),
    ("rt_tgsigqueueinfo", "Queue a signal and data to a thread", None, 1, "int tgid, int tid, sig sig, ptr uinfo_uaddr"),
    ("sched_get_priority_max", "Get the static priority range's maximum", None, 1, "schedpolicy policy"),
    ("sched_get_priority_min", "Get the static priority range's minimum", None, 1, "schedpolicy policy"),
    ("sched_getaffinity", "Get a thread's CPU affinity mask", None, 1, "int pid, uint len, ptr mask_uaddr"),
    ("sched_getattr", "Get scheduling policy and attributes", None, 1, "int pid, ptr sched_attr_uaddr, uint size, uint flags"),
    ("sched_getparam", "Get scheduling parameters", None, 1, "int pid, ptr p_uaddr"),
    ("sched_getscheduler", "Get the scheduling policy", None, 1, "int pid"),
    ("sched_rr_get_interval", "Get the SCHED_RR interval", None, 1, "int pid, ptr tp_uaddr"),
    ("sched_setaffinity", "Set a thread's CPU affinity mask", None, 1, "int pid, uint len, ptr mask_uaddr"),
    ("sched_setattr", "Set scheduling policy and attributes", None, 1, "int pid, ptr sched_attr_uaddr, uint flags"),
    ("sched_setparam", "Set scheduling parameters", None, 1, "int pid, ptr p_uaddr"),
    ("sched_setscheduler", "Set the scheduling policy and parameters", None, 1, "int pid, schedpolicy policy, ptr p_uaddr"),
    ("sched_yield", "Yield the processor", None, 1, ""),
    ("seccomp", "Operate on the secure computing state of the process", None, 1, "seccompop op, seccompflags flags, ptr uargs_uaddr"),
    ("select", "Synchronous I/O multiplexing", None, 1, "int n, ptr readfds_uaddr, ptr writefds_uaddr, ptr exceptfds_uaddr, ptr timeout_uaddr"),
    ("semctl", "System V semaphore control", None, 1, "int semid, int semnum, int cmd, ulong arg"),
    ("semget", "Get a System V semaphore set identifier", None, 1, "ipckey key, int nsems, semflg semflg"),
    ("semop", "System V semaphore operations", None, 1, "int semid, ptr sops_uaddr, uint nsops"),
    ("semtimedop", "System V semaphore operations with a timeout", None, 1, "int semid, ptr sops_uaddr, uint nsops, ptr timeout_uaddr"),
    ("send", "Send a message on a socket", None, 1, "int s, ptr buf_uaddr, ulong len, msgflags flags"),
    ("sendfile", "Transfer data between file descriptors", "__x64_sys_sendfile64", 1, "int out_fd, int in_fd, ptr offset_uaddr, ulong count"),
    ("sendmmsg", "Send multiple messages on a socket", None, 1, "int s, ptr mmsg_uaddr, uint vlen, msgflags flags"),
    ("sendmsg", "Send a message on a socket", None, 1, "int s, ptr msg_uaddr, msgflags flags"),
    ("sendto", "Send a message on a socket", None, 1, "int s, ptr buf_uaddr, ulong len, msgflags flags, ptr to_uaddr, int tolen"),
    ("set_mempolicy", "Set the default NUMA memory policy of a thread", None, 1, "mpolmode mode, ptr nmask_uaddr, ulong maxnode"),
    ("set_robust_list", "Set the robust futex list", None, 1, "ptr list_head_uaddr, ulong len"),
    ("set_thread_area", "Set a thread-local storage area", None, 1, "ptr u_info_uaddr"),
    ("set_tid_address", "Set pointer to thread ID", None, 1, "ptr tidptr_uaddr"),
    ("setdomainname", "Set the NIS domain name", None, 1, "ptr domainname_uaddr, int len"),
    ("setfsgid", "Set the group identity used for file system checks", None, 1, "uint fsgid"),
    ("setfsuid", "Set the user identity used for file system checks", None, 1, "uint fsuid"),
    ("setgid", "Set group identity", None, 1, "int gid"),
    ("setgroups", "Set the supplementary group IDs", None, 1, "int size, ptr list_uaddr"),
    ("sethostname", "Set the host name", None, 1, "ptr hostname_uaddr, int len"),
    ("setitimer", "Set the value of an interval timer", None, 1, "itimerwhich which, ptr value_uaddr, ptr ovalue_uaddr"),
    ("setns", "Reassociate a thread with a namespace", None, 1, "int fd, nsflags nstype"),
    ("setpgid", "Set the process group ID", None, 1, "int pid, int pgid"),
    ("setpriority", "Set the scheduling priority", None, 1, "priowhich which, int who, int prio"),
    ("setregid", "Set real and/or effective group ID", None, 1, "int rgid, int egid"),
    ("setregid16", "Set real and/or effective group ID (16-bit IDs)", "__ia32_sys_setregid16", 1, "uint rgid, uint egid"),
    ("setresgid", "Set real, effective and saved group IDs", None, 1, "int rgid, int egid, int sgid"),
    ("setresgid16", "Set real, effective and saved group IDs (16-bit IDs)", "__ia32_sys_setresgid16", 1, "uint rgid, uint egid, uint sgid"),
    ("setresuid", "Set real, effective and saved user IDs", None, 1, "int ruid, int euid, int suid"),
    ("setresuid16", "Set real, effective and saved user IDs (16-bit IDs)", "__ia32_sys_setresuid16", 1, "uint ruid, uint euid, uint suid"),
    ("setreuid", "Set real and/or effective user ID", None, 1, "int ruid, int euid"),
    ("setreuid16", "Set real and/or effective user ID (16-bit IDs)", "__ia32_sys_setreuid16", 1, "uint ruid, uint euid"),
    ("setrlimit", "Set resource limits", None, 1, "rlimres resource, ptr rlim_uaddr"),
    ("setsid", "Create a session", None, 1, ""),
    ("setsockopt", "Set options on a socket", None, 1, "int fd, soclevel level, sockoptname optname, ptr optval_uaddr, int optlen"),
    ("settimeofday", "Set the time of day", None, 1, "ptr tv_uaddr, ptr tz_uaddr"),
    ("settimeofday32", "Set the time of day (32-bit)", "__ia32_compat_sys_settimeofday", 1, "ptr tv_uaddr, ptr tz_uaddr"),
    ("setuid", "Set user identity", None, 1, "int uid"),
    ("setxattr", "Set an extended attribute value", None, 1, "str path, str name_str, ptr value_uaddr, ulong size, xattrflags flags"),
    ("sgetmask", "Get the signal mask (32-bit, obsolete)", "__ia32_sys_sgetmask", 1, ""),
    ("shmat", "Attach a System V shared memory segment", None, 2, "int shmid, ptr shmaddr_uaddr, shmatflg shmflg"),
    ("shmctl", "System V shared memory control", None, 1, "int shmid, shmctlcmd cmd, ptr buf_uaddr"),
    ("shmdt", "Detach a System V shared memory segment", None, 1, "ptr shmaddr_uaddr"),
    ("shmget", "Allocate a System V shared memory segment", None, 1, "ipckey key, ulong size, shmgetflg shmflg"),
    ("shutdown", "Shut down part of a full-duplex connection", None, 1, "int s, shuthow how"),
    ("sigaction", "Examine and change a signal action (old 32-bit call)", "-sys_sigaction", 1, "sig sig, ptr act_uaddr, ptr oact_uaddr"),
    ("sigaction32", "Examine and change a signal action (32-bit)", "__ia32_compat_sys_sigaction", 1, "sig sig, ptr act_uaddr, ptr oact_uaddr"),
    ("sigaltstack", "Set and/or get signal stack context", None, 1, "ptr uss_uaddr, ptr uoss_uaddr"),
    ("signal", "Set a signal handler (32-bit)", "__ia32_sys_signal", 2, "sig sig, sighandler handler"),
    ("signalfd", "Create a file descriptor for accepting signals", None, 1, "int ufd, ptr sigmask_uaddr, ulong sigsetsize"),
    ("sigpending", "Examine pending signals (32-bit)", "__ia32_compat_sys_sigpending", 1, "ptr set"),
    ("sigprocmask", "Examine and change blocked signals (32-bit)", "__ia32_compat_sys_sigprocmask", 1, "sighow how, ptr set_uaddr, ptr oldset_uaddr"),
    ("sigreturn", "Return from a signal handler (32-bit)", "__ia32_compat_sys_sigreturn", 1, ""),
    ("sigsuspend", "Wait for a signal (32-bit)", "__ia32_sys_sigsuspend", 1, "int -, int -, sigmask mask"),
    ("socket", "Create an endpoint for communication", None, 1, "sockfam family, socktype type, sockproto protocol"),
    ("socketpair", "Create a pair of connected sockets", None, 1, "sockfam family, socktype type, sockproto protocol, ptr sv_uaddr"),
    ("splice", "Splice data to or from a pipe", None, 1, "int fd_in, ptr off_in, int fd_out, ptr off_out, ulong len, spliceflags flags"),
    ("ssetmask", "Set the signal mask (32-bit, obsolete)", "__ia32_sys_ssetmask", 1, "sigmask newmask"),
    ("stat", "Get file status", "__x64_sys_newstat", 1, "str filename, ptr buf_uaddr"),
    ("statfs", "Get file system statistics", None, 1, "str path, ptr buf_uaddr"),
    ("statfs64", "Get file system statistics (32-bit)", "__ia32_compat_sys_statfs64", 1, "str path, uint sz, ptr buf_uaddr"),
    ("statx", "Get file status (extended)", None, 1, "dfd dfd, str filename, atflags flags, statxmask mask, ptr buf_uaddr"),
    ("stime", "Set the time (32-bit)", "__ia32_sys_stime32", 1, "ptr t_uaddr"),
    ("swapoff", "Stop swapping to a file or device", None, 1, "str path"),
    ("swapon", "Start swapping to a file or device", None, 1, "str path, swapflags swapflags"),
    ("symlink", "Make a new name for a file", None, 1, "str oldpath, str newpath"),
    ("symlinkat", "Make a new name for a file", None, 1, "strs oldname, dfd newdfd, strs newname"),
    ("sync", "Commit file system caches to disk", None, 1, ""),
    ("sync_file_range", "Sync a file segment with disk", None, 1, "int fd, long offset, long nbytes, sfrflags flags"),
    ("syncfs", "Commit a file system's caches to disk", None, 1, "int fd"),
    ("sysctl", "Read or write system parameters (removed)", "-sys_sysctl", 1, "ptr args"),
    ("sysctl32", "Read or write system parameters (32-bit, removed)", "-sys32_sysctl", 1, "ptr args"),
    ("sysfs", "Get file system type information", None, 1, "int option, ulong arg1, ulong arg2"),
    ("sysinfo", "Return system information", None, 1, "ptr info_uaddr"),
    ("syslog", "Read and/or clear the kernel message ring buffer", None, 1, "int type, ptr bufp_uaddr, int len"),
    ("tee", "Duplicate pipe content", None, 1, "int fdin, int fdout, ulong len, uint flags"),
    ("tgkill", "Send a signal to a thread", None, 1, "int tgid, int pid, sig sig"),
    ("time", "Get the time in seconds", None, 1, "ptr t_uaddr"),
    ("timer_create", "Create a POSIX per-process timer", None, 1, "clockid clockid, ptr evp_uaddr, ptr timerid_uaddr"),
    ("timer_delete", "Delete a POSIX per-process timer", None, 1, "int timerid"),
    ("timer_getoverrun", "Get the overrun count of a POSIX per-process timer", None, 1, "int timerid"),
    ("timer_gettime", "Get the state of a POSIX per-process timer", None, 1, "int timerid, ptr value_uaddr"),
    ("timer_settime", "Arm or disarm a POSIX per-process timer", None, 1, "int timerid, int flags, ptr value_uaddr, ptr ovalue_uaddr"),
    ("timerfd", "Create a timer file descriptor (old call)", "-sys_timerfd", 1, "int ufd, clockid clockid, int flags, ptr utmr"),
    ("timerfd_create", "Create a timer that notifies via a file descriptor", None, 1, "clockid clockid, tfdflags flags"),
    ("timerfd_gettime", "Get the state of a timer file descriptor", None, 1, "int fd, ptr value_uaddr"),
    ("timerfd_settime", "Arm or disarm a timer file descriptor", None, 1, "int fd, tfdsflags flags, ptr value_uaddr, ptr ovalue_uaddr"),
    ("times", "Get process times", None, 1, "ptr buf_uaddr"),
    ("tkill", "Send a signal to a thread", None, 1, "int pid, sig sig"),
    ("truncate", "Truncate a file to a specified length", None, 1, "str path, long length"),
    ("tux", "The TUX web server call (never in mainline kernels)", "-sys_tux", 1, ""),
    ("umask", "Set file mode creation mask", None, 3, "oct mask"),
    ("umount", "Unmount a file system", "__x64_sys_umount", 1, "str target, umountflags flags"),
    ("uname", "Get name and information about the current kernel", "__x64_sys_newuname", 1, "ptr name_uaddr"),
    ("unlink", "Delete a name and possibly the file it refers to", None, 1, "str pathname"),
    ("unlinkat", "Delete a name and possibly the file it refers to", None, 1, "dfd dfd, strs pathname, atflags flag"),
    ("unshare", "Disassociate parts of the process execution context", None, 1, "nsflags unshare_flags"),
    ("uselib", "Load a shared library (obsolete)", None, 1, "str library"),
    ("userfaultfd", "Create a file descriptor for handling page faults in user space", None, 1, "uffdflags flags"),
    ("ustat", "Get file system statistics (obsolete)", None, 1, "uint dev, ptr ubuf_uaddr"),
    ("ustat32", "Get file system statistics (32-bit, obsolete)", "__ia32_compat_sys_ustat", 1, "uint dev, ptr ubuf_uaddr"),
    ("utime", "Change file access and modification times", None, 1, "str filename, ptr buf_uaddr"),
    ("utimensat", "Change file timestamps with nanosecond precision", None, 1, "dfd dfd, str filename, ptr tsp_uaddr, atflags flags"),
    ("utimes", "Change file access and modification times", None, 1, "str filename, ptr tvp_uaddr"),
    ("vfork", "Create a child process and block parent", None, 1, ""),
    ("vhangup", "Virtually hang up the current terminal", None, 1, ""),
    ("vm86_warning", "The 32-bit vm86 warning call (old kernels)", "-sys32_vm86_warning", 1, ""),
    ("vmsplice", "Splice user pages into a pipe", None, 1, "int fd, ptr iov, ulong nr_segs, spliceflags flags"),
    ("wait4", "Wait for a process to change state", None, 1, "int pid, ptr status_uaddr, waitopt options, ptr rusage_uaddr"),
    ("waitid", "Wait for a process to change state", None, 1, "waitidwhich which, int pid, ptr infop_uaddr, waitopt options, ptr rusage_uaddr"),
    ("waitpid", "Wait for a process to change state (32-bit)", "__ia32_sys_waitpid", 1, "int pid, ptr status_uaddr, waitopt options"),
    ("write", "Write to a file descriptor", None, 1, "uint fd, ptr buf_uaddr, ulong count"),
    ("writev", "Write data from multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count"),
]

# The 32-bit (ia32) system call numbers the tp_syscall.* forms of the
# ia32 aliases (and of those with no x86_64 entry point) filter on, from
# arch/x86/entry/syscalls/syscall_32.tbl: alias name: number.
IA32_NR = {
    "bdflush": 134, "chown16": 182, "compat_adjtimex": 124, "compat_clock_nanosleep": 267,
    "compat_execve": 11, "compat_execveat": 358, "compat_fadvise64": 250, "compat_fadvise64_64": 272,
    "compat_fallocate": 324, "compat_ftruncate64": 194, "compat_futex": 240, "compat_futimesat": 299,
    "compat_getitimer": 105, "compat_lookup_dcookie": 253, "compat_nanosleep": 162, "compat_ppoll": 309,
    "compat_pselect6": 308, "compat_readahead": 225, "compat_recvmmsg": 337, "compat_rt_sigprocmask": 175,
    "compat_select": 142, "compat_setitimer": 104, "compat_signalfd": 321, "compat_sys_msgctl": 402,
    "compat_sys_msgrcv": 401, "compat_sys_msgsnd": 400, "compat_sys_recvmsg": 372, "compat_sys_semctl": 394,
    "compat_sys_semtimedop": 420, "compat_sys_sendmsg": 370, "compat_sys_shmat": 397, "compat_sys_shmctl": 396,
    "compat_sys_utimes": 271, "compat_truncate64": 193, "compat_utime": 30, "compat_utimensat": 320,
    "compat_vmsplice": 316, "fadvise64_64": 272, "fchown16": 95, "fstatfs64": 269, "ftruncate64": 194,
    "lchown16": 16, "llseek": 140, "nice": 34, "pwrite32": 181, "readdir": 89, "rt_sigaction32": 174,
    "setregid16": 71, "setresgid16": 170, "setresuid16": 164, "setreuid16": 70, "settimeofday32": 79,
    "sgetmask": 68, "sigaction": 67, "sigaction32": 67, "signal": 48, "sigpending": 73, "sigprocmask": 126,
    "sigreturn": 119, "sigsuspend": 72, "ssetmask": 69, "statfs64": 268, "stime": 25, "ustat32": 62,
    "waitpid": 7,
}

# x86_64 names (unistd_64.txt) of aliases named otherwise, where neither
# the alias's name nor its entry point's gives it.
X64_NAME = {"umount": "umount2", "sysctl": "_sysctl"}


# Variables beyond the register arguments, set after them in the entry
# alias: name: [(variable, expression, what it is)]. Struct arguments are
# decoded from user memory at entry (as stap does), out-parameters too.
_SOCKADDR_PARTS = [("af", 1, "address family (AF_INET)"), ("ip", 2, "IP address (127.0.0.1)"),
                   ("ip_port", 3, "port (80)"), ("ipv6_flowinfo", 4, "IPv6 flow information"),
                   ("ipv6_scope_id", 5, "IPv6 scope ID")]


def _sockaddr_parts(addr, length):
    return [(f"uaddr_{part}", f"_struct_sockaddr_part({addr}, {length}, {what})",
             f"the socket address's {doc}, as text (\"\" where the family has none)")
            for part, what, doc in _SOCKADDR_PARTS]


def _SPLIT64(i):
    """A 64-bit argument the 32-bit ABI passes in registers i (low half)
    and i + 1 (high half)."""
    return f"_syscall_arg_uint({i}) | (_syscall_arg_uint({i + 1}) << 32)"


_XATTR_SET = [("name_uaddr", "name_str_uaddr", "the address of the attribute's name"),
              ("value_str", "user_buffer_quoted(value_uaddr, size, 32)", "the value, quoted, its first 32 bytes")]


_BUF_TRUNC = 32  # characters of a data buffer that argstr and NAME_str show
EXTRA = {
    "adjtimex": [("buf_str", "_struct_timex_u(buf_uaddr)", "the struct timex at entry, decoded")],
    "bdflush": [("data_str", "func >= 2 && func % 2 == 0 ? sprintf(\"%p\", data) : sprintf(\"%d\", data)",
                 "data as argstr shows it: an address for the even (read) functions, else a number")],
    "clock_adjtime": [("tx_uaddr_str", "_struct_timex_u(tx_uaddr)", "the struct timex at entry, decoded")],
    "clock_settime": [("tp_uaddr_str", "_struct_timespec_u(tp_uaddr, 1)", "the new time, [SEC.NSEC]")],
    "compat_adjtimex": [("buf_str", "_struct_compat_timex_u(buf_uaddr)", "the 32-bit struct timex at entry, decoded")],
    "compat_clock_nanosleep": [("req_str", "_struct_compat_time_u(req_uaddr, 1, 0)", "the requested time, [SEC.NSEC]")],
    "compat_execve": [("args", "_syscall_compat_argv_str(args_uaddr)", "the arguments, [\"ls\", \"-l\"]"),
                      ("env_str", "_syscall_compat_envp_count_str(env_uaddr)",
                       "the number of environment variables, in brackets as a C comment (3 vars)")],
    "compat_execveat": [("args", "_syscall_compat_argv_str(args_uaddr)", "the arguments, [\"ls\", \"-l\"]"),
                        ("env_str", "_syscall_compat_envp_count_str(env_uaddr)",
                         "the number of environment variables, in brackets as a C comment (3 vars)")],
    "compat_fadvise64": [("offset", _SPLIT64(2), "the offset, from its two 32-bit halves")],
    "compat_fadvise64_64": [("offset", _SPLIT64(2), "the offset, from its two 32-bit halves"),
                            ("len", _SPLIT64(4), "the length, from its two 32-bit halves")],
    "fadvise64_64": [("offset", _SPLIT64(2), "the offset, from its two 32-bit halves"),
                     ("len", _SPLIT64(4), "the length, from its two 32-bit halves")],
    "compat_fallocate": [("offset", _SPLIT64(3), "the offset, from its two 32-bit halves"),
                         ("len", _SPLIT64(5), "the length, from its two 32-bit halves")],
    "compat_ftruncate64": [("length", _SPLIT64(2), "the length, from its two 32-bit halves")],
    "ftruncate64": [("length", _SPLIT64(2), "the length, from its two 32-bit halves")],
    "compat_truncate64": [("length", _SPLIT64(2), "the length, from its two 32-bit halves")],
    "compat_readahead": [("offset", _SPLIT64(2), "the offset, from its two 32-bit halves")],
    "pwrite32": [("offset", _SPLIT64(4), "the offset, from its two 32-bit halves"),
                 ("buf_str", f"user_buffer_quoted(buf_uaddr, count, {_BUF_TRUNC})",
                  f"the data written, quoted, its first {_BUF_TRUNC} characters")],
    "compat_lookup_dcookie": [("cookie", _SPLIT64(1), "the cookie, from its two 32-bit halves")],
    "compat_futimesat": [("tvp_str", "_struct_compat_time_u(tvp_uaddr, 2, 1)", "the two times, [SEC.USEC, SEC.USEC]")],
    "compat_nanosleep": [("req_str", "_struct_compat_time_u(req_uaddr, 1, 0)", "the requested time, [SEC.NSEC]")],
    "compat_ppoll": [("tsp_str", "_struct_compat_time_u(tsp, 1, 0)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "compat_pselect6": [("timeout_str", "_struct_compat_time_u(timeout, 1, 0)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "compat_pselect7": [("timeout_str", "_struct_compat_time_u(timeout, 1, 0)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "compat_recvmmsg": [("timeout_str", "_struct_compat_time_u(timeout_uaddr, 1, 0)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "compat_rt_sigprocmask": [("set_str", "_stp_sigset_u(set_uaddr)", "the signal set, [SIGINT|SIGTERM] (NULL: none)")],
    "compat_select": [("timeout_str", "_struct_compat_time_u(timeout_uaddr, 1, 1)", "the timeout, [SEC.USEC] (NULL: none)")],
    "compat_setitimer": [("value_str", "_struct_compat_time_u(value_uaddr, 2, 1)", "the new timer, [INTERVAL, VALUE]")],
    "compat_signalfd": [("flags", "0", "0 (the flags of signalfd4(2))")],
    "signalfd": [("flags", "0", "0 (the flags of signalfd4(2))")],
    "compat_sys_semctl": [("cmdstr", "_ipc_cmd_str(cmd, 2)", "the command named (GETVAL, IPC_RMID)")],
    "semctl": [("cmdstr", "_ipc_cmd_str(cmd, 2)", "the command named (GETVAL, IPC_RMID)")],
    "compat_sys_semtimedop": [("timeout_str", "_struct_timespec_u(timeout_uaddr, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "semtimedop": [("timeout_str", "_struct_timespec_u(timeout_uaddr, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "compat_sys_utimes": [("tvp_uaddr_str", "_struct_compat_time_u(timeval, 2, 1)", "the two times, [SEC.USEC, SEC.USEC]")],
    "compat_utime": [("actime", "buf_uaddr ? user_int(buf_uaddr) : 0", "the new access time (0 without a buffer)"),
                     ("modtime", "buf_uaddr ? user_int(buf_uaddr + 4) : 0", "the new modification time")],
    "compat_utimensat": [("tsp_str", "_struct_compat_time_u(tsp_uaddr, 2, 0)", "the two times, [SEC.NSEC, SEC.NSEC]")],
    "execveat": [("args", "_syscall_argv_str(args_uaddr)", "the arguments, [\"ls\", \"-l\"]"),
                 ("env_str", "_syscall_envp_count_str(env_uaddr)",
                  "the number of environment variables, in brackets as a C comment (3 vars)")],
    "fremovexattr": [("name_uaddr", "name_str_uaddr", "the address of the attribute's name")],
    "lremovexattr": [("name_uaddr", "name_str_uaddr", "the address of the attribute's name")],
    "fsetxattr": _XATTR_SET,
    "lsetxattr": _XATTR_SET,
    "setxattr": _XATTR_SET,
    "futimesat": [("tvp_str", "_struct_timeval_u(tvp_uaddr, 2)", "the two times, [SEC.USEC, SEC.USEC]")],
    "utimes": [("tvp_uaddr_str", "_struct_timeval_u(tvp_uaddr, 2)", "the two times, [SEC.USEC, SEC.USEC]")],
    "get_thread_area": [("u_info_str", "_struct_user_desc_u(u_info_uaddr)", "the struct user_desc at entry, decoded")],
    "set_thread_area": [("u_info_str", "_struct_user_desc_u(u_info_uaddr)", "the struct user_desc, decoded")],
    "io_getevents": [("timestr", "_struct_timespec_u(timeout_uaddr, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "mq_open": [("name_uaddr", "filename_uaddr", "the address of the queue's name")],
    "recvmmsg": [("timeout_str", "_struct_timespec_u(timeout_uaddr, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "request_key": [("type_uaddr", "type", "the address of the key type"),
                    ("description_uaddr", "description", "the address of the key description")],
    "rt_sigaction32": [("act_str", "_struct_sigaction32_u(act_uaddr, 1)",
                        "the new action, {SIG_DFL}, {SIG_IGN} or {HANDLER, FLAGS, MASK}")],
    "sigaction32": [("act_str", "_struct_sigaction32_u(act_uaddr, 0)",
                     "the new action, {SIG_DFL}, {SIG_IGN} or {HANDLER, FLAGS, MASK}")],
    "sigaction": [("act_str", "_struct_sigaction32_u(act_uaddr, 0)",
                   "the new action, {SIG_DFL}, {SIG_IGN} or {HANDLER, FLAGS, MASK}")],
    "rt_sigqueueinfo": [("siginfo_str", "_struct_siginfo_u(uinfo_uaddr)", "the siginfo, {si_signo=..., si_errno=..., si_code=...}")],
    "rt_tgsigqueueinfo": [("uinfo_str", "_struct_siginfo_u(uinfo_uaddr)", "the siginfo, {si_signo=..., si_errno=..., si_code=...}")],
    "rt_sigsuspend": [("set_str", "_stp_sigset_u(set_uaddr)", "the temporary signal mask, [SIGINT|SIGTERM]")],
    "rt_sigtimedwait": [("uthese_str", "_stp_sigset_u(uthese_uaddr)", "the signals waited for, [SIGUSR1]"),
                        ("uinfo_str", "_struct_siginfo_u(uinfo_uaddr)", "the siginfo buffer at entry, decoded (NULL: none)"),
                        ("uts_str", "_struct_timespec_u(uts_uaddr, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "sched_getattr": [("sched_attr_str", "_struct_sched_attr_u(sched_attr_uaddr)", "the struct sched_attr at entry, decoded")],
    "sched_setattr": [("sched_attr_str", "_struct_sched_attr_u(sched_attr_uaddr)", "the struct sched_attr, decoded")],
    "send": [("buf", f"user_buffer_quoted(buf_uaddr, len, {_BUF_TRUNC})",
              f"the data sent, quoted, its first {_BUF_TRUNC} characters")],
    "setdomainname": [("domainname_str", "user_string_n_quoted(domainname_uaddr, len)", "the new domain name, quoted"),
                      ("domainname_str_unquoted", "user_string_n(domainname_uaddr, len)", "the new domain name")],
    "sethostname": [("name_str", "user_string_n_quoted(hostname_uaddr, len)", "the new host name, quoted"),
                    ("name_str_unquoted", "user_string_n(hostname_uaddr, len)", "the new host name")],
    "settimeofday": [("tv_str", "_struct_timeval_u(tv_uaddr, 1)", "the new time, [SEC.USEC] (NULL: none)"),
                     ("tz_str", "_struct_timezone_u(tz_uaddr)", "the new time zone, [MINUTESWEST, DSTTIME] (NULL: none)")],
    "settimeofday32": [("tv_str", "_struct_compat_time_u(tv_uaddr, 1, 1)", "the new time, [SEC.USEC] (NULL: none)"),
                       ("tz_str", "_struct_timezone_u(tz_uaddr)", "the new time zone, [MINUTESWEST, DSTTIME] (NULL: none)")],
    "timer_settime": [("value_str", "_struct_timespec_u(value_uaddr, 2)", "the new timer, [INTERVAL, VALUE]")],
    "timerfd_settime": [("value_str", "_struct_timespec_u(value_uaddr, 2)", "the new timer, [INTERVAL, VALUE]")],
    "utime": [("actime", "buf_uaddr ? user_long(buf_uaddr) : 0", "the new access time (0 without a buffer)"),
              ("modtime", "buf_uaddr ? user_long(buf_uaddr + 8) : 0", "the new modification time")],
    "bind": _sockaddr_parts("my_addr_uaddr", "addrlen"),
    "connect": _sockaddr_parts("serv_addr_uaddr", "addrlen"),
    "clock_nanosleep": [("req_str", "_struct_timespec_u(req_uaddr, 1)", "the requested time, [SEC.NSEC]")],
    "nanosleep": [("req_str", "_struct_timespec_u(req_uaddr, 1)", "the requested time, [SEC.NSEC]")],
    "dup2": [("flags", "0", "0 (the flags of dup3(2))"),
             ("flags_str", "_dup3_flag_str(flags)", "the flags named (0x0)")],
    "epoll_create": [("flags", "0", "0 (the flags of epoll_create1(2))")],
    "epoll_create1": [("size", "0", "0 (the size of epoll_create(2))")],
    "eventfd": [("flags", "0", "0 (the flags of eventfd2(2))"),
                ("flags_str", "_eventfd_flags_str(flags)", "the flags named (0x0)")],
    "execve": [("args", "_syscall_argv_str(args_uaddr)", "the arguments, [\"ls\", \"-l\"]"),
               ("env_str", "_syscall_envp_count_str(env_uaddr)", "the number of environment variables, in brackets as a C comment (3 vars)")],
    "getrandom": [("buf", "user_string_quoted(buf_uaddr)", "the buffer's contents at entry, quoted"),
                  ("buf_unquoted", "user_string(buf_uaddr, \"\")", "the same, unquoted")],
    "inotify_init": [("flags", "0", "0 (the flags of inotify_init1(2))")],
    "mkdirat": [("pahtname_unquoted", "pathname_unquoted",
                 "pathname_unquoted under the name stap's tapset misspells")],
    "mount": [("data", "data_uaddr ? user_string_quoted(data_uaddr) : \"NULL\"",
               "the file system's options string, quoted (NULL if none)"),
              ("data_unquoted", "user_string(data_uaddr, \"\")", "the options string itself")],
    "pipe": [("flags", "0", "0 (the flags of pipe2(2))"),
             ("flag_str", "_pipe2_flag_str(flags)", "the flags named (0x0)"),
             ("pipe0", "user_int(fildes_uaddr)", "fildes[0] at entry (see syscall.pipe.return)"),
             ("pipe1", "user_int(fildes_uaddr + 4)", "fildes[1] at entry (see syscall.pipe.return)")],
    "pipe2": [("flag_str", "_pipe2_flag_str(flags)", "the flags named (O_NONBLOCK|O_CLOEXEC)"),
              ("pipe0", "user_int(fildes_uaddr)", "fildes[0] at entry (see syscall.pipe.return)"),
              ("pipe1", "user_int(fildes_uaddr + 4)", "fildes[1] at entry (see syscall.pipe.return)")],
    "ppoll": [("tsp_str", "_struct_timespec_u(tsp, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "prlimit64": [("new_rlim_str", "_struct_rlimit_u(new_rlim_uaddr)", "the new limits, [CUR, MAX] (NULL: none)")],
    "pselect6": [("timeout_str", "_struct_timespec_u(timeout, 1)", "the timeout, [SEC.NSEC] (NULL: none)")],
    "select": [("timeout_str", "_struct_timeval_u(timeout_uaddr, 1)", "the timeout, [SEC.USEC] (NULL: none)")],
    "pwrite": [("buf_str", f"user_buffer_quoted(buf_uaddr, count, {_BUF_TRUNC})",
                f"the data written, quoted, its first {_BUF_TRUNC} characters")],
    "write": [("buf_str", f"user_buffer_quoted(buf_uaddr, count, {_BUF_TRUNC})",
               f"the data written, quoted, its first {_BUF_TRUNC} characters")],
    "sendto": [("buf", f"user_buffer_quoted(buf_uaddr, len, {_BUF_TRUNC})",
                f"the data sent, quoted, its first {_BUF_TRUNC} characters"),
               ("to_str", "_struct_sockaddr_part(to_uaddr, tolen, 0)", "the destination address, {AF_INET, 127.0.0.1, 69}")],
    "rt_sigaction": [("act_str", "_struct_sigaction_u(act_uaddr)",
                      "the new action, {SIG_DFL}, {SIG_IGN} or {HANDLER, FLAGS, RESTORER, MASK}")],
    "rt_sigprocmask": [("set_str", "_stp_sigset_u(set_uaddr)", "the signal set, [SIGINT|SIGTERM] (NULL: none)")],
    "setitimer": [("value_str", "_struct_timeval_u(value_uaddr, 2)", "the new timer, [INTERVAL, VALUE]")],
    "setrlimit": [("rlim_str", "_struct_rlimit_u(rlim_uaddr)", "the new limits, [CUR, MAX]")],
    "sigaltstack": [("uss_str", "_stp_sigaltstack_u(uss_uaddr)", "the new stack, {ss_sp=..., ss_flags=..., ss_size=...}")],
    "sysinfo": [("info_str", "_struct_sysinfo_u(info_uaddr)", "the struct sysinfo at entry, decoded")],
    "times": [("buf_str", "_struct_tms_u(buf_uaddr)", "the struct tms at entry, decoded")],
    "utimensat": [("tsp_str", "_struct_timespec_u(tsp_uaddr, 2)",
                   "the two times, [SEC.NSEC, SEC.NSEC] or UTIME_NOW/UTIME_OMIT (NULL: now)")],
}

# argstr where it shows decoded variables rather than one piece per
# register: name: (format, expressions).
ARGSTR = {
    "compat_clock_nanosleep": ("%s, %s, %s, %p", "clk_id_str, flags_str, req_str, rem_uaddr"),
    "compat_nanosleep": ("%s, %p", "req_str, rem_uaddr"),
    "compat_execve": ("%s, %s, %s", "filename, args, env_str"),
    "compat_execveat": ("%s, %s, %s, %s, %s", "dirfd_str, filename, args, env_str, flags_str"),
    "execveat": ("%s, %s, %s, %s, %s", "dirfd_str, filename, args, env_str, flags_str"),
    "compat_fadvise64": ("%d, %d, %u, %s", "fd, offset, len, advice_str"),
    "compat_fadvise64_64": ("%d, %d, %d, %s", "fd, offset, len, advice_str"),
    "fadvise64_64": ("%d, %d, %d, %s", "fd, offset, len, advice_str"),
    "compat_fallocate": ("%d, %s, %d, %d", "fd, mode_str, offset, len"),
    "compat_ftruncate64": ("%u, %d", "fd, length"),
    "ftruncate64": ("%u, %d", "fd, length"),
    "compat_truncate64": ("%s, %d", "path, length"),
    "compat_readahead": ("%d, %d, %u", "fd, offset, count"),
    "pwrite32": ("%u, %s, %u, %d", "fd, buf_str, count, offset"),
    "compat_lookup_dcookie": ("%#x, %p, %u", "cookie, buffer_uaddr, len"),
    "compat_ppoll": ("%p, %u, %s, %p, %u", "fds_uaddr, nfds, tsp_str, sigmask, sigsetsize"),
    "compat_pselect6": ("%d, %p, %p, %p, %s, %p", "nfds, readfds, writefds, exceptfds, timeout_str, sigmask"),
    "compat_select": ("%d, %p, %p, %p, %s", "n, readfds_uaddr, writefds_uaddr, exceptfds_uaddr, timeout_str"),
    "compat_setitimer": ("%s, %s, %p", "which_str, value_str, ovalue_uaddr"),
    "compat_rt_sigprocmask": ("%s, %s, %p, %u", "how_str, set_str, oldset_uaddr, sigsetsize"),
    "rt_sigaction32": ("%s, %s, %p, %u", "sig_str, act_str, oact_uaddr, sigsetsize"),
    "sigaction32": ("%s, %s, %p", "sig_str, act_str, oact_uaddr"),
    "sigaction": ("%s, %s, %p", "sig_str, act_str, oact_uaddr"),
    "compat_utimensat": ("%s, %s, %s, %s", "dfd_str, filename, tsp_str, flags_str"),
    "futimesat": ("%s, %s, %s", "dirfd_str, filename, tvp_str"),
    "compat_futimesat": ("%s, %s, %s", "dirfd_str, filename, tvp_str"),
    "utimes": ("%s, %s", "filename, tvp_uaddr_str"),
    "compat_sys_utimes": ("%s, %s", "filename, tvp_uaddr_str"),
    "utime": ("%s, [%d, %d]", "filename, actime, modtime"),
    "compat_utime": ("%s, [%d, %d]", "filename, actime, modtime"),
    "semctl": ("%d, %d, %s, 0x%x", "semid, semnum, cmdstr, arg"),
    "compat_sys_semctl": ("%d, %d, %s, 0x%x", "semid, semnum, cmdstr, arg"),
    "send": ("%d, %s, %u, %s", "s, buf, len, flags_str"),
    "sethostname": ("%s, %d", "name_str, len"),
    "setdomainname": ("%s, %d", "domainname_str, len"),
    "settimeofday": ("%s, %s", "tv_str, tz_str"),
    "settimeofday32": ("%s, %s", "tv_str, tz_str"),
    "adjtimex": ("%s", "buf_str"),
    "compat_adjtimex": ("%s", "buf_str"),
    "clock_settime": ("%s, %s", "clk_id_str, tp_uaddr_str"),
    "clock_adjtime": ("%s, %s", "clk_id_str, tx_uaddr_str"),
    "timer_settime": ("%d, %d, %s, %p", "timerid, flags, value_str, ovalue_uaddr"),
    "timerfd_settime": ("%d, %s, %s, %p", "fd, flags_str, value_str, ovalue_uaddr"),
    "rt_sigsuspend": ("%s, %u", "set_str, sigsetsize"),
    "rt_sigtimedwait": ("%s, %p, %s, %u", "uthese_str, uinfo_uaddr, uts_str, sigsetsize"),
    "rt_sigqueueinfo": ("%d, %s, %s", "pid, sig_name, siginfo_str"),
    "rt_tgsigqueueinfo": ("%d, %d, %s, %s", "tgid, tid, sig_str, uinfo_str"),
    "sched_setattr": ("%d, %s, %u", "pid, sched_attr_str, flags"),
    "set_thread_area": ("%s", "u_info_str"),
    "fsetxattr": ("%d, %s, %s, %u, %s", "filedes, name_str, value_str, size, flags_str"),
    "lsetxattr": ("%s, %s, %s, %u, %s", "path, name_str, value_str, size, flags_str"),
    "setxattr": ("%s, %s, %s, %u, %s", "path, name_str, value_str, size, flags_str"),
    "semtimedop": ("%d, %p, %u, %s", "semid, sops_uaddr, nsops, timeout_str"),
    "compat_sys_semtimedop": ("%d, %p, %u, %s", "semid, sops_uaddr, nsops, timeout_str"),
    "recvmmsg": ("%d, %p, %u, %s, %s", "s, mmsg_uaddr, vlen, flags_str, timeout_str"),
    "compat_recvmmsg": ("%d, %p, %u, %s, %s", "s, mmsg_uaddr, vlen, flags_str, timeout_str"),
    "io_getevents": ("%u, %d, %d, %p, %s", "ctx_id, min_nr, nr, events_uaddr, timestr"),
    "bind": ("%d, %s, %d", "sockfd, _struct_sockaddr_part(my_addr_uaddr, addrlen, 0), addrlen"),
    "connect": ("%d, %s, %d", "sockfd, _struct_sockaddr_part(serv_addr_uaddr, addrlen, 0), addrlen"),
    "clock_nanosleep": ("%s, %s, %s, %p", "clk_id_str, flags_str, req_str, rem_uaddr"),
    "nanosleep": ("%s, %p", "req_str, rem_uaddr"),
    "execve": ("%s, %s, %s", "filename, args, env_str"),
    "mount": ("%s, %s, %s, %s, %s", "source, target, filesystemtype, mountflags_str, data"),
    "pipe2": ("%p, %s", "fildes_uaddr, flag_str"),
    "ppoll": ("%p, %u, %s, %p, %u", "fds_uaddr, nfds, tsp_str, sigmask, sigsetsize"),
    "prlimit64": ("%d, %s, %s, %p", "pid, resource_str, new_rlim_str, old_rlim_uaddr"),
    "pselect6": ("%d, %p, %p, %p, %s, %p", "nfds, readfds, writefds, exceptfds, timeout_str, sigmask"),
    "select": ("%d, %p, %p, %p, %s", "n, readfds_uaddr, writefds_uaddr, exceptfds_uaddr, timeout_str"),
    "pwrite": ("%u, %s, %u, %d", "fd, buf_str, count, offset"),
    "write": ("%u, %s, %u", "fd, buf_str, count"),
    "sendto": ("%d, %s, %u, %s, %s, %u", "s, buf, len, flags_str, to_str, tolen"),
    "rt_sigaction": ("%s, %s, %p, %u", "sig_str, act_str, oact_uaddr, sigsetsize"),
    "rt_sigprocmask": ("%s, %s, %p, %u", "how_str, set_str, oldset_uaddr, sigsetsize"),
    "setitimer": ("%s, %s, %p", "which_str, value_str, ovalue_uaddr"),
    "setrlimit": ("%s, %s", "resource_str, rlim_str"),
    "sigaltstack": ("%s, %p", "uss_str, uoss_uaddr"),
    "utimensat": ("%s, %s, %s, %s", "dfd_str, filename, tsp_str, flags_str"),
}

# Variables of syscall.NAME.return beyond name, retval and retstr, as
# stap's return aliases offer them: entry arguments through @entry, and
# out-parameters read on the way back.
RETURNS = {
    "epoll_create": [("flags", "0", "0 (the flags of epoll_create1(2))")],
    "epoll_create1": [("flags", "@entry(_syscall_arg_int(1))", "the flags it was called with")],
    "pipe": [("fildes_uaddr", "@entry(_syscall_arg(1))", "the address of the two file descriptors"),
             ("pipe0", "user_int(fildes_uaddr)", "the pipe's read end, fildes[0]"),
             ("pipe1", "user_int(fildes_uaddr + 4)", "the pipe's write end, fildes[1]")],
    "pipe2": [("fildes_uaddr", "@entry(_syscall_arg(1))", "the address of the two file descriptors"),
              ("pipe0", "user_int(fildes_uaddr)", "the pipe's read end, fildes[0]"),
              ("pipe1", "user_int(fildes_uaddr + 4)", "the pipe's write end, fildes[1]")],
    "wait4": [("status_uaddr", "@entry(_syscall_arg(2))", "the address of the status word"),
              ("status_str", "retval > 0 && status_uaddr ? _wait_status_str(user_int(status_uaddr)) : \"\"",
               "the child's status, WEXITSTATUS=0, WTERMSIG=SIGKILL, ... (\"\" if none was stored)")],
    "ptrace": [("geteventmsg_data", "@entry(_syscall_arg(1)) == 0x4201 ? user_ulong(@entry(_syscall_arg(4))) : 0",
                "for PTRACE_GETEVENTMSG, the message it stored"),
               ("arch_prctl_addr", "@entry(_syscall_arg(1)) == 30 && (@entry(_syscall_arg(4)) == 0x1003 || "
                "@entry(_syscall_arg(4)) == 0x1004) ? user_ulong(@entry(_syscall_arg(3))) : 0",
                "for PTRACE_ARCH_PRCTL with ARCH_GET_FS or ARCH_GET_GS, the base it stored")],
}

# One stap alias for a system call and its newer variant with flags
# (syscall.pipe fires for pipe and pipe2, name telling which): the
# public alias's name: the table's entries it covers.
GROUPS = {
    "pipe": ["pipe", "pipe2"],
    "eventfd": ["eventfd", "eventfd2"],
    "epoll_create": ["epoll_create", "epoll_create1"],
    "inotify_init": ["inotify_init", "inotify_init1"],
}


def parse_args(spec):
    out = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        kind, name = part.split()
        if kind not in KINDS:
            sys.exit(f"syscalls.py: unknown argument kind '{kind}' in '{spec}'")
        out.append((kind, name))
    if len(out) > 6:
        sys.exit(f"syscalls.py: more than six arguments in '{spec}'")
    return out


def unistd_names():
    """nr -> name, from the checked-in copy of x86_64's asm/unistd_64.h."""
    names = {}
    with open(UNISTD) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+(\d+)\s*$", line)
            if m:
                names[int(m.group(2))] = m.group(1)
    return names


class Variant:
    """Where an alias's arguments come from. kprobe: the entry point's
    pt_regs pointer (_syscall_arg*, _syscall32_arg*); tp: the raw_syscalls
    tracepoints' $regs (_syscall_regs_arg*($regs, N), ...). abi 1 reads
    the ia32 registers. In a tp return the user registers still hold the
    arguments (only ax changes), so @entry(READ) becomes READ."""

    def __init__(self, abi, tp):
        self.abi, self.tp = abi, tp

    def expr(self, e, ret=False):
        base = "_syscall32" if self.abi else "_syscall"
        if self.tp:
            e = re.sub(r"_syscall_arg(_int|_uint)?\(", lambda m: f"{base}_regs_arg{m.group(1) or ''}($regs, ", e)
            if ret:
                e = re.sub(r"@entry\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)", r"\1", e)
        elif self.abi:
            e = re.sub(r"_syscall_arg(_int|_uint)?\(", lambda m: f"{base}_arg{m.group(1) or ''}(", e)
        return e


KPROBE64, KPROBE32 = Variant(0, False), Variant(1, False)


def entry_vars(name, args):
    """(variable, doc) of syscall.NAME, in the order the alias sets them."""
    out = []
    for i, (kind, v) in enumerate(args):
        if v == "-":
            continue
        out.append((v, DOC[kind].format(n=ORDINAL[i], v=v, name=name)))
        out += [(v + suffix, None) for suffix in KINDS[kind][3]]
    out += [(v, doc) for v, _, doc in EXTRA.get(name, [])]
    return out


def entry_body(name, args, var=KPROBE64):
    lines = [f"\tname = \"{name}\""]
    fmts, exprs = [], []
    for i, (kind, v) in enumerate(args):
        if v == "-":
            continue
        reader, fmt, expr, extra = KINDS[kind]
        # A string's address comes first; its text is read from it.
        for suffix in ("_uaddr",):
            if suffix in extra:
                lines.append(f"\t{v}{suffix} = {var.expr(extra[suffix].format(i=i + 1, v=v))}")
        lines.append(f"\t{v} = {var.expr(reader.format(i=i + 1, v=v))}")
        for suffix, e in extra.items():
            if suffix != "_uaddr":
                lines.append(f"\t{v}{suffix} = {var.expr(e.format(i=i + 1, v=v))}")
        fmts.append(fmt)
        exprs.append(expr.format(v=v))
    lines += [f"\t{v} = {var.expr(e)}" for v, e, _ in EXTRA.get(name, [])]
    if name in ARGSTR:
        fmt, e = ARGSTR[name]
        lines.append(f"\targstr = sprintf(\"{fmt}\", {var.expr(e)})")
    elif exprs:
        # A piece without a format brings its own ", " (or nothing).
        fmt = ""
        for f in fmts:
            fmt += "%s" if f is None else (", " if fmt else "") + f
        lines.append(f"\targstr = sprintf(\"{fmt}\", {', '.join(exprs)})")
    else:
        lines.append("\targstr = \"\"")
    return lines


def return_body(name, retfmt, var=KPROBE64, retval="returnval()"):
    lines = [f"\tname = \"{name}\"", f"\tretval = {retval}"]
    lines += [f"\t{v} = {var.expr(e, ret=True)}" for v, e, _ in RETURNS.get(name, [])]
    lines.append(f"\tretstr = return_str({retfmt}, retval)")
    return lines


def probe(point, targets, summary, doc_vars, description, body):
    """A documented alias: point = targets { body }."""
    lines = ["/**", f" * probe {point} - {summary}", " *"]
    lines += [f" * @{v}: {d}" for v, d in doc_vars if d]
    if description:
        lines += [" *", " * Description: " + description[0]] + [" * " + d for d in description[1:]]
    lines += [" */", f"probe {point} = {', '.join(targets)}", "{"] + body + ["}", ""]
    return lines


def entry_doc(name, args):
    return ([("name", f"Name of the system call (\"{name}\")")] + entry_vars(name, args)
            + [("argstr", "The arguments, formatted as strace shows them")])


def return_doc(name):
    return ([("name", f"Name of the system call (\"{name}\")"),
             ("retval", "The return value (a negative errno on failure)")]
            + [(v, d) for v, _, d in RETURNS.get(name, [])]
            + [("retstr", "The return value as text: \"3\", or \"-2 (ENOENT)\"")])


# The twin families of stap's syscall tapset, which stapx's aliases (no
# DWARF needed) serve from the same probe points: prefix: (what stap's
# family is, names stap's family lacks (NAME: entry and return;
# NAME.return or NAME.entry: that one alone), as stap 4.8 lists them).
_NO_ND1 = {"compat_pselect7", "compat_rt_sigprocmask", "gethostname", "ni_syscall", "pipe32", "pselect7",
           "rt_sigreturn", "sigreturn", "sysctl32", "timerfd", "tux", "vm86_warning",
           "exit.return", "exit_group.return", "getrandom.return"}
TWINS = {
    "nd_syscall": ("stap's dwarfless tapset", set()),
    "dw_syscall": ("stap's DWARF-based tapset", set()),
    "nd1_syscall": ("stap's dwarfless kprobe tapset", _NO_ND1),
    "nd2_syscall": ("stap's dwarfless tapset of its second kind",
                    _NO_ND1 - {"getrandom.return"} | {"clock_adjtime.entry", "clone", "fadvise64_64", "ftruncate64",
                                                       "sigaction"}),
}
# Names stap's tp_syscall family lacks (it has no tracepoint form for them).
NO_TP = _NO_ND1 - {"getrandom.return"}


def twins(name, has_return=True):
    lines = []
    for prefix, (what, lacking) in TWINS.items():
        for ret in ("", ".return") if has_return else ("",):
            if name in lacking or name + (ret or ".entry") in lacking:
                continue
            lines += ["/**", f" * probe {prefix}.{name}{ret} - syscall.{name}{ret}, for scripts written for {what}",
                      " *", f" * Description: The same as syscall.{name}{ret}, which needs no DWARF either.", " */",
                      f"probe {prefix}.{name}{ret} = syscall.{name}{ret} {{ }}", ""]
    return lines


def is_ia32(sym):
    return bool(sym) and sym.startswith("__ia32_")


def tp_number(name, sym, x64):
    """(abi, nr) of the system call a tp_syscall.NAME filters on, or None."""
    if name in IA32_NR:
        return 1, IA32_NR[name]
    if is_ia32(sym):
        return None
    for cand in ([sym[len("__x64_sys_"):]] if sym and sym.startswith("__x64_sys_") else []) + [X64_NAME.get(name, name)]:
        if cand in x64:
            return 0, x64[cand]
    return None


def tp_alias(name, summary, retfmt, args, abi, nr, prefix="tp_syscall"):
    """tp_syscall.NAME and .return: raw_syscalls tracepoints filtered on
    the system call's number (and ABI), the arguments read from $regs."""
    var = Variant(abi, True)
    abiname = "32-bit (ia32)" if abi else "x86_64"
    gate = f"\tif ($id != {nr} || {'!' if abi else ''}_syscall_is_ia32()) next"
    rgate = f"\tif ($regs->orig_ax != {nr} || {'!' if abi else ''}_syscall_is_ia32()) next"
    desc = [f"The raw_syscalls:sys_enter tracepoint for the {abiname} system call",
            f"number {nr}, as stap's tp_syscall.{name}; the arguments come from $regs."]
    lines = probe(f"{prefix}.{name}", ["kernel.trace(\"raw_syscalls:sys_enter\")"], summary,
                  entry_doc(name, args), desc, [gate] + entry_body(name, args, var))
    if name + ".return" not in NO_TP:
        rdesc = [f"The raw_syscalls:sys_exit tracepoint for {abiname} system call {nr}; variables",
                 "the return alias takes from the entry are read from the user registers, which",
                 "still hold the arguments."]
        lines += probe(f"{prefix}.{name}.return", ["kernel.trace(\"raw_syscalls:sys_exit\")"],
                       f"Return from {name}", return_doc(name), rdesc,
                       [rgate] + return_body(name, retfmt, var, retval="$ret"))
    return lines


def alias(name, summary, sym, retfmt, args, x64, prefix="syscall"):
    """syscall.NAME and .return (or __syscall.NAME, a group's member), and
    the tracepoint form tp_syscall.NAME (__tp_syscall.NAME)."""
    tpprefix = "__tp_syscall" if prefix == "__syscall" else "tp_syscall"
    tp = None if name in NO_TP else tp_number(name, sym, x64)
    lines = []
    if tp:
        lines += tp_alias(name, summary, retfmt, args, tp[0], tp[1], tpprefix)
    if sym and sym.startswith("-"):
        # No entry point on x86_64 6.1: the tracepoint form if the number
        # exists, else a kprobe on the old function, which resolves to
        # nothing (an error unless the script's probe is optional).
        if tp:
            desc = [f"x86_64 6.1 has no entry point for {name}; this is {tpprefix}.{name}."]
            lines += probe(f"{prefix}.{name}", [f"{tpprefix}.{name}"], summary, entry_doc(name, args), desc, [])
            if name + ".return" not in NO_TP:
                lines += probe(f"{prefix}.{name}.return", [f"{tpprefix}.{name}.return"], f"Return from {name}",
                               return_doc(name), [f"The return of {tpprefix}.{name}."], [])
            return lines
        sym = sym[1:]
    sym = sym or f"__x64_sys_{name}"
    var = KPROBE32 if is_ia32(sym) else KPROBE64
    kp = f"kprobe.function(\"{sym}\")"
    if is_ia32(sym):
        desc = [f"A kprobe on {sym}, the kernel's entry point for",
                f"the 32-bit (ia32) {name}(2); needs no debug information. Its arguments",
                "are the 32-bit ABI's registers bx, cx, dx, si, di, bp."]
    elif sym.startswith("__x64_"):
        desc = [f"A kprobe on {sym}, the kernel's entry point for",
                f"{name}(2); needs no debug information."]
    else:
        desc = [f"A kprobe on {sym}, which x86_64 kernels 6.1 do not have:",
                "the alias resolves to nothing there (see tapsets/gen/syscalls.py)."]
    lines += probe(f"{prefix}.{name}", [kp + " ?"], summary, entry_doc(name, args), desc,
                   entry_body(name, args, var))
    lines += probe(f"{prefix}.{name}.return", [kp + ".return ?"], f"Return from {name}", return_doc(name),
                   [], return_body(name, retfmt, var))
    return lines


def group(public, members, rows, x64):
    """syscall.PUBLIC over the group's members, each an alias of its own."""
    lines = []
    for m in members:
        _, summary, sym, retfmt, spec = rows[m]
        lines += alias(m, summary, sym, retfmt, parse_args(spec), x64, prefix="__syscall")
    names = " and ".join(f"{m}(2)" for m in members)
    first = [v for v, _ in entry_doc(public, parse_args(rows[public][4]))]
    for m in members:
        have = [v for v, _ in entry_doc(m, parse_args(rows[m][4]))]
        if sorted(have) != sorted(first):
            sys.exit(f"syscalls.py: group {public}: {m} sets {sorted(have)}, {public} {sorted(first)}")
        if sorted(v for v, _ in return_doc(m)) != sorted(v for v, _ in return_doc(public)):
            sys.exit(f"syscalls.py: group {public}: {m}.return differs from {public}.return")
    # Each variable documented by the first member for which it means more than 0.
    docs = {}
    for m in members:
        for v, d in entry_doc(m, parse_args(rows[m][4])):
            if v not in docs or (docs[v] or "").startswith("0 ("):
                docs[v] = d
    doc = [(v, docs[v]) for v in first]
    doc[0] = ("name", "Name of the system call (" + " or ".join(f"\"{m}\"" for m in members) + ")")
    desc = [f"{names} alike, as stap's syscall.{public}; name says which."]
    rdoc = return_doc(public)
    rdoc[0] = doc[0]
    for pre in ("syscall", "tp_syscall"):
        lines += probe(f"{pre}.{public}", [f"__{pre}.{m} ?" for m in members], rows[public][1], doc, desc, [])
        lines += probe(f"{pre}.{public}.return", [f"__{pre}.{m}.return ?" for m in members],
                       f"Return from {' or '.join(members)}", rdoc, [f"The return of {names}."], [])
    return lines + twins(public)


def generate():
    names = unistd_names()
    x64 = {v: k for k, v in names.items()}
    out = [
        "// GENERATED by tapsets/gen/syscalls.py from its table; do not edit.",
        "// syscall.NAME and syscall.NAME.return for x86_64, as kprobes on the",
        "// kernel's __x64_sys_NAME (and ia32 __ia32_*) entry points (no DWARF",
        "// needed), their nd_/dw_/nd1_/nd2_syscall.* twins, the tracepoint forms",
        "// tp_syscall.*, syscall_any and the number -> name table.",
        "",
    ]
    rows = {}
    for row in SYSCALLS:
        if row[0] in rows:
            sys.exit(f"syscalls.py: {row[0]} listed twice")
        rows[row[0]] = row
    member = {m: public for public, ms in GROUPS.items() for m in ms}
    for name, summary, sym, retfmt, spec in SYSCALLS:
        if name in GROUPS:
            out += group(name, GROUPS[name], rows, x64)
        elif name not in member:
            lines = alias(name, summary, sym, retfmt, parse_args(spec), x64)
            has_return = any(l.startswith(f"probe syscall.{name}.return ") for l in lines)
            out += lines + twins(name, has_return)
    top = max(names)
    out += [
        "/**",
        " * sfunction syscall_name - The name of a system call, given its number",
        " * @nr: The x86_64 system call number",
        " *",
        " * Description: \"read\" for 0, \"write\" for 1, and so on; \"sys_NR\" for",
        " * a number x86_64 does not use.",
        " */",
        "function syscall_name:string (nr:long) %{ /* pure */ /* unprivileged */",
    ]
    # The table of names by number, which both functions hold.
    table = [f"\tstatic const char *const names[{top + 1}] = {{"]
    table += [f"\t\t[{nr}] = \"{names[nr]}\"," for nr in sorted(names)]
    table += ["\t};"]
    out += table
    out += [
        "",
        "\tif (STAP_ARG_nr >= 0 && STAP_ARG_nr < ARRAY_SIZE(names) && names[STAP_ARG_nr])",
        "\t\tstrscpy(STAP_RETVALUE, names[STAP_ARG_nr], MAXSTRINGLEN);",
        "\telse",
        "\t\tsnprintf(STAP_RETVALUE, MAXSTRINGLEN, \"sys_%lld\", (long long)STAP_ARG_nr);",
        "%}",
        "",
        "/**",
        " * sfunction syscall_num - The number of a system call, given its name",
        " * @name: the system call's name, as syscall_name() gives it (\"read\")",
        " *",
        " * Description: The x86_64 system call number that syscall_name() names",
        " * @name: 0 for \"read\", 1 for \"write\", and so on; -1 if no system call",
        " * is called @name (\"sys_NR\", syscall_name()'s text for an unused number,",
        " * among them).",
        " */",
        "function syscall_num:long (name:string) %{ /* pure */ /* unprivileged */",
    ]
    out += table
    out += [
        "\tint nr;",
        "",
        "\tSTAP_RETVALUE = -1;",
        "\tfor (nr = 0; nr < ARRAY_SIZE(names); nr++)",
        "\t\tif (names[nr] && strcmp(names[nr], STAP_ARG_name) == 0) {",
        "\t\t\tSTAP_RETVALUE = nr;",
        "\t\t\tbreak;",
        "\t\t}",
        "%}",
        "",
    ]
    return "\n".join(out)


def missing_vs_stap():
    """Per system call of the table: the variables `man tapset::syscalls`
    lists that the generated alias does not set (stap's man pages must be
    installed). Returns the number of aliases that lack some, or None
    without the man page."""
    import subprocess
    text = subprocess.run("man tapset::syscalls 2>/dev/null | col -b", shell=True, capture_output=True,
                          text=True).stdout
    stap = {}
    for m in re.finditer(r"\n {7}syscall\.(\S+)\n((?:(?: {14}|\t).*\n)*)", text):
        body = re.sub(r"[\u2010-]\n\s*", "", m.group(2))  # words hyphenated at line ends
        stap[m.group(1)] = {v.strip() for v in body.replace("\n", " ").split(",") if v.strip()}
    if not stap:
        print("syscalls.py: no stap man page tapset::syscalls to compare with", file=sys.stderr)
        return None
    member = {m: public for public, ms in GROUPS.items() for m in ms if m != public}
    lacking = 0
    for name, _, _, _, spec in SYSCALLS:
        if name in member:
            print(f"{name}: part of syscall.{member[name]}")
            continue
        have = {"name", "argstr"} | {v for v, _ in entry_vars(name, parse_args(spec))}
        want = {v for v in stap.get(name, set()) if not v.startswith("$") and v not in ("int", "pt_regs*")}
        if name not in stap:
            print(f"{name}: not in stap's list")
        elif want - have:
            print(f"{name}: " + ", ".join(sorted(want - have)))
            lacking += 1
    return lacking


def main(argv):
    if "--missing" in argv:
        # --strict (a build test): exit 1 if an alias lacks a variable, 77
        # (skipped) without stap's man page.
        lacking = missing_vs_stap()
        if "--strict" in argv:
            return 77 if lacking is None else 1 if lacking else 0
        return 0
    status = write_or_check(argv, DEFAULT_OUT, generate(), __file__)
    if status == 0 and "--check" not in argv:
        print(f"{([a for a in argv if a != '--check'] or [DEFAULT_OUT])[0]}: {len(SYSCALLS)} system calls")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
