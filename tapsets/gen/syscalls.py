#!/usr/bin/env python3
"""Generates tapsets/syscalls.stp: syscall.NAME and syscall.NAME.return
probe aliases (and nd_syscall.* twins), syscall_any and the syscall
number -> name table.

    tapsets/gen/syscalls.py [--check] [OUT]
    tapsets/gen/syscalls.py --missing [--strict]

Every alias is a kprobe on the kernel's x86_64 entry point __x64_sys_NAME,
so it needs no DWARF. That wrapper receives the user's registers as
`struct pt_regs *regs` in %rdi; the system call's arguments are
regs->di, si, dx, r10, r8, r9. Variable names follow stap's syscall
tapset as `man tapset::syscalls` lists them.

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
    ("alarm", "Set an alarm clock for delivery of a signal", None, 1, "uint seconds"),
    ("bind", "Bind a name to a socket", None, 1, "int sockfd, ptr my_addr_uaddr, int addrlen"),
    ("brk", "Change data segment size", None, 2, "hex brk"),
    ("capget", "Get process capabilities", None, 1, "ptr header_uaddr, ptr data_uaddr"),
    ("capset", "Set process capabilities", None, 1, "ptr header_uaddr, ptr data_uaddr"),
    ("chdir", "Change working directory", None, 1, "str path"),
    ("chmod", "Change permissions of a file", None, 1, "str path, oct mode"),
    ("chown", "Change ownership of a file", None, 1, "str path, int owner, int group"),
    ("chroot", "Change root directory", None, 1, "str path"),
    ("clock_getres", "Get the resolution of a clock", None, 1, "clockid clk_id, ptr res_uaddr"),
    ("clock_gettime", "Get the time of a clock", None, 1, "clockid clk_id, ptr tp_uaddr"),
    ("clock_nanosleep", "Sleep on a clock", None, 1, "clockid clk_id, cnsflags flags, ptr req_uaddr, ptr rem_uaddr"),
    ("clone", "Create a child process", None, 1, "hex clone_flags, ptr stack_start, ptr parent_tid_uaddr, ptr child_tid_uaddr, hex tls"),
    ("close", "Close a file descriptor", None, 1, "int fd"),
    ("close_range", "Close a range of file descriptors", None, 1, "uint fd, uint max_fd, hex flags"),
    ("connect", "Initiate a connection on a socket", None, 1, "int sockfd, ptr serv_addr_uaddr, int addrlen"),
    ("copy_file_range", "Copy a range of data from one file to another", None, 1, "int fd_in, ptr off_in, int fd_out, ptr off_out, ulong len, uint flags"),
    ("creat", "Create a file", None, 1, "str pathname, oct mode"),
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
    ("exit", "Exit the current thread", None, 1, "int status"),
    ("exit_group", "Exit all threads in a process", None, 1, "int status"),
    ("faccessat", "Check user's permissions for a file", None, 1, "dfd dirfd, str pathname, amode mode"),
    ("fadvise64", "Predeclare an access pattern for file data", None, 1, "int fd, long offset, long len, fadv advice"),
    ("fallocate", "Manipulate file space", None, 1, "int fd, fallocmode mode, long offset, long len"),
    ("fchdir", "Change working directory", None, 1, "uint fd"),
    ("fchmod", "Change permissions of a file", None, 1, "uint fildes, oct mode"),
    ("fchmodat", "Change permissions of a file", None, 1, "dfd dirfd, str pathname, oct mode"),
    ("fchown", "Change ownership of a file", None, 1, "uint fd, int owner, int group"),
    ("fchownat", "Change ownership of a file", None, 1, "dfd dirfd, str pathname, int owner, int group, atflags flags"),
    ("fcntl", "Manipulate a file descriptor", None, 1, "uint fd, fcntlcmd cmd, long arg"),
    ("fdatasync", "Synchronize a file's data with storage", None, 1, "uint fd"),
    ("flock", "Apply or remove an advisory lock on an open file", None, 1, "uint fd, uint operation"),
    ("fork", "Create a child process", None, 1, ""),
    ("fstat", "Get file status", "__x64_sys_newfstat", 1, "uint filedes, ptr buf_uaddr"),
    ("fstatat", "Get file status", "__x64_sys_newfstatat", 1, "dfd dirfd, str path, ptr buf_uaddr, atflags flags"),
    ("fstatfs", "Get file system statistics", None, 1, "uint fd, ptr buf_uaddr"),
    ("fsync", "Synchronize a file's state with storage", None, 1, "uint fd"),
    ("ftruncate", "Truncate a file to a specified length", None, 1, "uint fd, ulong length"),
    ("futex", "Fast user-space locking", None, 1, "ptr futex_uaddr, int op, uint val, ptr utime_uaddr, ptr uaddr2_uaddr, uint val3"),
    ("getcwd", "Get current working directory", None, 1, "ptr buf_uaddr, ulong size"),
    ("getdents", "Get directory entries", "__x64_sys_getdents64", 1, "uint fd, ptr dirp_uaddr, uint count"),
    ("getegid", "Get the effective group ID", None, 1, ""),
    ("geteuid", "Get the effective user ID", None, 1, ""),
    ("getgid", "Get the real group ID", None, 1, ""),
    ("getgroups", "Get the supplementary group IDs", None, 1, "int size, ptr list_uaddr"),
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
    ("inotify_add_watch", "Add a watch to an initialized inotify instance", None, 1, "int fd, str path, inmask mask"),
    ("inotify_init", "Initialize an inotify instance", None, 1, ""),
    ("inotify_init1", "Initialize an inotify instance", None, 1, "hex flags"),
    ("inotify_rm_watch", "Remove a watch from an inotify instance", None, 1, "int fd, int wd"),
    ("ioctl", "Control a device", None, 1, "uint fd, uint request, ptr argp"),
    ("kill", "Send a signal to a process", None, 1, "int pid, signame sig"),
    ("lchown", "Change ownership of a file", None, 1, "str path, int owner, int group"),
    ("link", "Make a new name for a file", None, 1, "str oldpath, str newpath"),
    ("linkat", "Make a new name for a file", None, 1, "dfd olddirfd, str oldpath, dfd newdirfd, str newpath, atflags flags"),
    ("listen", "Listen for connections on a socket", None, 1, "int sockfd, int backlog"),
    ("lseek", "Reposition the read/write file offset", None, 1, "uint fildes, long offset, whence whence"),
    ("lstat", "Get file status", "__x64_sys_newlstat", 1, "str path, ptr buf_uaddr"),
    ("madvise", "Give advice about use of memory", None, 1, "hex start, ulong length, madv advice"),
    ("memfd_create", "Create an anonymous file", None, 1, "str uname, mfdflags flags"),
    ("mincore", "Determine whether pages are resident in memory", None, 1, "hex start, ulong length, ptr vec_uaddr"),
    ("mkdir", "Create a directory", None, 1, "str pathname, oct mode"),
    ("mkdirat", "Create a directory", None, 1, "dfd dirfd, str pathname, oct mode"),
    ("mknod", "Create a special or ordinary file", None, 1, "str pathname, mknodmode mode, uint dev"),
    ("mknodat", "Create a special or ordinary file", None, 1, "dfd dirfd, str pathname, mknodmode mode, uint dev"),
    ("mlock", "Lock memory", None, 1, "hex addr, ulong len"),
    ("mmap2", "Map files or devices into memory", "__x64_sys_mmap", 2, "hex start, ulong length, prot prot, mflags flags, int fd, long pgoffset"),
    ("mount", "Mount a file system", None, 1, "str source, str target, str filesystemtype, mountflags mountflags, ptr data_uaddr"),
    ("mprotect", "Set protection on a region of memory", None, 1, "hex addr, ulong len, prot prot"),
    ("mremap", "Remap a virtual memory address", None, 2, "hex old_address, ulong old_size, ulong new_size, mremapflags flags, hex new_address"),
    ("msync", "Synchronize a file with a memory map", None, 1, "hex start, ulong length, msyncflags flags"),
    ("munlock", "Unlock memory", None, 1, "hex addr, ulong len"),
    ("munmap", "Unmap files or devices from memory", None, 1, "hex start, ulong length"),
    ("nanosleep", "High-resolution sleep", None, 1, "ptr req_uaddr, ptr rem_uaddr"),
    ("open", "Open a file", None, 1, "str filename, oflags flags, cmode mode"),
    ("openat", "Open a file", None, 1, "dfd dfd, str filename, oflags flags, cmode mode"),
    ("pause", "Wait for a signal", None, 1, ""),
    ("pipe", "Create a pipe", None, 1, "ptr fildes_uaddr"),
    ("pipe2", "Create a pipe", None, 1, "ptr fildes_uaddr, int flags"),
    ("poll", "Wait for some event on a file descriptor", None, 1, "ptr ufds_uaddr, uint nfds, int timeout"),
    ("ppoll", "Wait for some event on a file descriptor", None, 1, "ptr fds_uaddr, uint nfds, ptr tsp, ptr sigmask, ulong sigsetsize"),
    ("prctl", "Operations on a process", None, 1, "int option, ulong arg2, ulong arg3, ulong arg4, ulong arg5"),
    ("pread", "Read from a file descriptor at a given offset", "__x64_sys_pread64", 1, "uint fd, ptr buf_uaddr, ulong count, long offset"),
    ("preadv", "Read data into multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count, long offset"),
    ("prlimit64", "Get or set resource limits", None, 1, "int pid, rlimres resource, ptr new_rlim_uaddr, ptr old_rlim_uaddr"),
    ("pselect6", "Synchronous I/O multiplexing", None, 1, "int nfds, ptr readfds, ptr writefds, ptr exceptfds, ptr timeout, ptr sigmask"),
    ("ptrace", "Process trace", None, 1, "long request, int pid, hex addr, hex data"),
    ("pwrite", "Write to a file descriptor at a given offset", "__x64_sys_pwrite64", 1, "uint fd, ptr buf_uaddr, ulong count, long offset"),
    ("pwritev", "Write data from multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count, long offset"),
    ("read", "Read from a file descriptor", None, 1, "uint fd, ptr buf_uaddr, ulong count"),
    ("readlink", "Read the value of a symbolic link", None, 1, "str path, ptr buf_uaddr, int bufsiz"),
    ("readlinkat", "Read the value of a symbolic link", None, 1, "dfd dfd, str path, ptr buf_uaddr, int bufsiz"),
    ("readv", "Read data into multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count"),
    ("recvfrom", "Receive a message from a socket", None, 1, "int s, ptr buf_uaddr, ulong len, msgflags flags, ptr addr_uaddr, ptr addrlen_uaddr"),
    ("recvmsg", "Receive a message from a socket", None, 1, "int s, ptr msg_uaddr, msgflags flags"),
    ("rename", "Change the name or location of a file", None, 1, "str oldpath, str newpath"),
    ("renameat", "Change the name or location of a file", None, 1, "dfd olddfd, strs oldname, dfd newdfd, strs newname"),
    ("renameat2", "Change the name or location of a file", None, 1, "dfd olddfd, strs oldname, dfd newdfd, strs newname, renameflags flags"),
    ("rmdir", "Delete a directory", None, 1, "str pathname"),
    ("rt_sigaction", "Examine and change a signal action", None, 1, "sig sig, ptr act_uaddr, ptr oact_uaddr, ulong sigsetsize"),
    ("rt_sigprocmask", "Examine and change blocked signals", None, 1, "sighow how, ptr set_uaddr, ptr oldset_uaddr, ulong sigsetsize"),
    ("rt_sigreturn", "Return from a signal handler", None, 1, ""),
    ("sched_getaffinity", "Get a thread's CPU affinity mask", None, 1, "int pid, uint len, ptr mask_uaddr"),
    ("sched_setaffinity", "Set a thread's CPU affinity mask", None, 1, "int pid, uint len, ptr mask_uaddr"),
    ("sched_yield", "Yield the processor", None, 1, ""),
    ("select", "Synchronous I/O multiplexing", None, 1, "int n, ptr readfds_uaddr, ptr writefds_uaddr, ptr exceptfds_uaddr, ptr timeout_uaddr"),
    ("sendfile", "Transfer data between file descriptors", "__x64_sys_sendfile64", 1, "int out_fd, int in_fd, ptr offset_uaddr, ulong count"),
    ("sendmsg", "Send a message on a socket", None, 1, "int s, ptr msg_uaddr, msgflags flags"),
    ("sendto", "Send a message on a socket", None, 1, "int s, ptr buf_uaddr, ulong len, msgflags flags, ptr to_uaddr, int tolen"),
    ("set_robust_list", "Set the robust futex list", None, 1, "ptr list_head_uaddr, ulong len"),
    ("set_tid_address", "Set pointer to thread ID", None, 1, "ptr tidptr_uaddr"),
    ("setgid", "Set group identity", None, 1, "int gid"),
    ("setitimer", "Set the value of an interval timer", None, 1, "itimerwhich which, ptr value_uaddr, ptr ovalue_uaddr"),
    ("setpgid", "Set the process group ID", None, 1, "int pid, int pgid"),
    ("setpriority", "Set the scheduling priority", None, 1, "priowhich which, int who, int prio"),
    ("setrlimit", "Set resource limits", None, 1, "rlimres resource, ptr rlim_uaddr"),
    ("setsid", "Create a session", None, 1, ""),
    ("setsockopt", "Set options on a socket", None, 1, "int fd, soclevel level, sockoptname optname, ptr optval_uaddr, int optlen"),
    ("setuid", "Set user identity", None, 1, "int uid"),
    ("shutdown", "Shut down part of a full-duplex connection", None, 1, "int s, shuthow how"),
    ("sigaltstack", "Set and/or get signal stack context", None, 1, "ptr uss_uaddr, ptr uoss_uaddr"),
    ("socket", "Create an endpoint for communication", None, 1, "sockfam family, socktype type, sockproto protocol"),
    ("socketpair", "Create a pair of connected sockets", None, 1, "sockfam family, socktype type, sockproto protocol, ptr sv_uaddr"),
    ("splice", "Splice data to or from a pipe", None, 1, "int fd_in, ptr off_in, int fd_out, ptr off_out, ulong len, spliceflags flags"),
    ("stat", "Get file status", "__x64_sys_newstat", 1, "str filename, ptr buf_uaddr"),
    ("statfs", "Get file system statistics", None, 1, "str path, ptr buf_uaddr"),
    ("statx", "Get file status (extended)", None, 1, "dfd dfd, str filename, atflags flags, statxmask mask, ptr buf_uaddr"),
    ("symlink", "Make a new name for a file", None, 1, "str oldpath, str newpath"),
    ("symlinkat", "Make a new name for a file", None, 1, "strs oldname, dfd newdfd, strs newname"),
    ("sync", "Commit file system caches to disk", None, 1, ""),
    ("syncfs", "Commit a file system's caches to disk", None, 1, "int fd"),
    ("sysinfo", "Return system information", None, 1, "ptr info_uaddr"),
    ("tgkill", "Send a signal to a thread", None, 1, "int tgid, int pid, sig sig"),
    ("timerfd_create", "Create a timer that notifies via a file descriptor", None, 1, "clockid clockid, tfdflags flags"),
    ("times", "Get process times", None, 1, "ptr buf_uaddr"),
    ("tkill", "Send a signal to a thread", None, 1, "int pid, sig sig"),
    ("truncate", "Truncate a file to a specified length", None, 1, "str path, long length"),
    ("umask", "Set file mode creation mask", None, 3, "oct mask"),
    ("umount", "Unmount a file system", "__x64_sys_umount", 1, "str target, umountflags flags"),
    ("uname", "Get name and information about the current kernel", "__x64_sys_newuname", 1, "ptr name_uaddr"),
    ("unlink", "Delete a name and possibly the file it refers to", None, 1, "str pathname"),
    ("unlinkat", "Delete a name and possibly the file it refers to", None, 1, "dfd dfd, strs pathname, atflags flag"),
    ("utimensat", "Change file timestamps with nanosecond precision", None, 1, "dfd dfd, str filename, ptr tsp_uaddr, atflags flags"),
    ("vfork", "Create a child process and block parent", None, 1, ""),
    ("wait4", "Wait for a process to change state", None, 1, "int pid, ptr status_uaddr, waitopt options, ptr rusage_uaddr"),
    ("waitid", "Wait for a process to change state", None, 1, "waitidwhich which, int pid, ptr infop_uaddr, waitopt options, ptr rusage_uaddr"),
    ("write", "Write to a file descriptor", None, 1, "uint fd, ptr buf_uaddr, ulong count"),
    ("writev", "Write data from multiple buffers", None, 1, "ulong fd, ptr vector_uaddr, ulong count"),
]


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


_BUF_TRUNC = 32  # characters of a data buffer that argstr and NAME_str show
EXTRA = {
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


def entry_vars(name, args):
    """(variable, doc) of syscall.NAME, in the order the alias sets them."""
    out = []
    for i, (kind, v) in enumerate(args):
        out.append((v, DOC[kind].format(n=ORDINAL[i], v=v, name=name)))
        out += [(v + suffix, None) for suffix in KINDS[kind][3]]
    out += [(v, doc) for v, _, doc in EXTRA.get(name, [])]
    return out


def entry_body(name, args):
    lines = [f"\tname = \"{name}\""]
    fmts, exprs = [], []
    for i, (kind, v) in enumerate(args):
        reader, fmt, expr, extra = KINDS[kind]
        # A string's address comes first; its text is read from it.
        for suffix in ("_uaddr",):
            if suffix in extra:
                lines.append(f"\t{v}{suffix} = {extra[suffix].format(i=i + 1, v=v)}")
        lines.append(f"\t{v} = {reader.format(i=i + 1, v=v)}")
        for suffix, e in extra.items():
            if suffix != "_uaddr":
                lines.append(f"\t{v}{suffix} = {e.format(i=i + 1, v=v)}")
        fmts.append(fmt)
        exprs.append(expr.format(v=v))
    lines += [f"\t{v} = {e}" for v, e, _ in EXTRA.get(name, [])]
    if name in ARGSTR:
        fmt, e = ARGSTR[name]
        lines.append(f"\targstr = sprintf(\"{fmt}\", {e})")
    elif args:
        # A piece without a format brings its own ", " (or nothing).
        fmt = ""
        for f in fmts:
            fmt += "%s" if f is None else (", " if fmt else "") + f
        lines.append(f"\targstr = sprintf(\"{fmt}\", {', '.join(exprs)})")
    else:
        lines.append("\targstr = \"\"")
    return lines


def return_body(name, retfmt):
    lines = [f"\tname = \"{name}\"", "\tretval = returnval()"]
    lines += [f"\t{v} = {e}" for v, e, _ in RETURNS.get(name, [])]
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


def nd_twins(name):
    lines = []
    for ret in ("", ".return"):
        lines += ["/**", f" * probe nd_syscall.{name}{ret} - syscall.{name}{ret}, for scripts written for stap's dwarfless tapset",
                  " *", f" * Description: The same as syscall.{name}{ret}, which needs no DWARF either.", " */",
                  f"probe nd_syscall.{name}{ret} = syscall.{name}{ret} {{ }}", ""]
    return lines


def alias(name, summary, sym, retfmt, args, prefix="syscall"):
    """syscall.NAME and .return (or __syscall.NAME, a group's member)."""
    sym = sym or f"__x64_sys_{name}"
    kp = f"kprobe.function(\"{sym}\")"
    desc = [f"A kprobe on {sym}, the kernel's entry point for",
            f"{name}(2); needs no debug information."]
    lines = probe(f"{prefix}.{name}", [kp + " ?"], summary, entry_doc(name, args), desc, entry_body(name, args))
    lines += probe(f"{prefix}.{name}.return", [kp + ".return ?"], f"Return from {name}", return_doc(name),
                   [], return_body(name, retfmt))
    return lines


def group(public, members, rows):
    """syscall.PUBLIC over the group's members, each an alias of its own."""
    lines = []
    for m in members:
        _, summary, sym, retfmt, spec = rows[m]
        lines += alias(m, summary, sym, retfmt, parse_args(spec), prefix="__syscall")
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
    lines += probe(f"syscall.{public}", [f"__syscall.{m} ?" for m in members], rows[public][1], doc, desc, [])
    rdoc = return_doc(public)
    rdoc[0] = doc[0]
    lines += probe(f"syscall.{public}.return", [f"__syscall.{m}.return ?" for m in members],
                   f"Return from {' or '.join(members)}", rdoc, [f"The return of {names}."], [])
    return lines + nd_twins(public)


def generate():
    names = unistd_names()
    out = [
        "// GENERATED by tapsets/gen/syscalls.py from its table; do not edit.",
        "// syscall.NAME and syscall.NAME.return for x86_64, as kprobes on the",
        "// kernel's __x64_sys_NAME entry points (no DWARF needed), their",
        "// nd_syscall.* twins, syscall_any and the number -> name table.",
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
            out += group(name, GROUPS[name], rows)
        elif name not in member:
            out += alias(name, summary, sym, retfmt, parse_args(spec)) + nd_twins(name)
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
        f"\tstatic const char *const names[{top + 1}] = {{",
    ]
    for nr in sorted(names):
        out.append(f"\t\t[{nr}] = \"{names[nr]}\",")
    out += [
        "\t};",
        "",
        "\tif (STAP_ARG_nr >= 0 && STAP_ARG_nr < ARRAY_SIZE(names) && names[STAP_ARG_nr])",
        "\t\tstrscpy(STAP_RETVALUE, names[STAP_ARG_nr], MAXSTRINGLEN);",
        "\telse",
        "\t\tsnprintf(STAP_RETVALUE, MAXSTRINGLEN, \"sys_%lld\", (long long)STAP_ARG_nr);",
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
