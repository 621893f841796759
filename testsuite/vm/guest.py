"""guest.py: run stapx kernel modules in a throw-away QEMU guest.

Shared by run-tests and vm-run (stdlib only).  The host cannot load kernel
modules, so every module runs in a QEMU/TCG guest booted straight from a
Debian kernel (fetched by fetch-kernel) and a busybox initramfs built here:

  /bin/busybox + applet links, /bin/stapx-run, /init (generated),
  /t/NAME/...  one directory per job (its module, trigger script, ...)

/init mounts proc, sysfs, devtmpfs and debugfs, then runs the jobs in order,
each as `cd /t/NAME && stapx-run ARGS... MODULE.ko >stdout 2>stderr` under a
watchdog (SIGINT after the job's timeout, SIGKILL 10 s later), and powers off.
A job's `kmods` (e.g. the test fixture module) are insmod'ed before it, in
their order, and rmmod'ed after it, in reverse order; if one cannot be
loaded the job does not run and ends with status 125 and "stapx-vm: insmod
M failed: ..." on its stderr.

Two serial ports keep test output apart from kernel messages:
  ttyS0  console (kernel messages, /init's own output) -> console.log
  ttyS1  results, raw mode -> results.log: lines "@@stapx WORD ARGS" and
         base64 blocks between "@@stapx data WHAT" and "@@stapx .".

After each job /init unloads any module left loaded and moves the kernel log
into the job's result (dmesg -c).  If that log shows a kernel problem (Oops,
WARN splat, lockdep report...) or a module cannot be unloaded, the guest
powers off early so that the next jobs run on a clean kernel: run_all()
reboots for them.  If the guest dies or hangs mid-job, that job is reported
as crashed (with the console from the job's start) and the rest as not run.
"""

import base64
import dataclasses
import gzip
import hashlib
import os
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FETCH_KERNEL = os.path.join(HERE, "fetch-kernel")

DEFAULT_JOB_TIMEOUT = 60      # seconds a job may run in the guest (TCG is slow)
KILL_GRACE = 10               # seconds between SIGINT and SIGKILL
BOOT_TIMEOUT = 180            # seconds from QEMU start to the guest's "ready"
SLACK = 30                    # seconds of silence on the results port (outside
                              # a job's own run time) that mean the guest hung

# A kernel-log line containing any of these fails the job (case-sensitive
# substrings; the guest greps for the same list).  Taint notices such as
# "loading out-of-tree module taints kernel" and "module verification failed"
# contain none of them and are fine.
BAD_LOG = [
    "BUG:", "kernel BUG at", "Oops", "WARNING: CPU:", "general protection",
    "Unable to handle kernel", "possible recursive locking",
    "circular locking dependency", "inconsistent lock state", "INFO: possible",
    "lockdep", "Call Trace", "Kernel panic", "kernel panic",
    "detected stall", "blocked for more than", "UBSAN:",
]

# QEMU's accelerator.  Single-threaded TCG: with one host thread per vCPU
# (TCG's default for -smp 2), a vCPU can go on running kernel text another
# vCPU is patching (kprobe and ftrace arming and disarming) and jump into
# half-written code, which oopses any kprobe module loaded or unloaded under
# load, a hand-written one included.  testsuite/vm/coherence checks this, and
# README.md says what it costs.  STAPX_VM_ACCEL overrides it (the coherence
# check uses that to show the other setting fails).
DEFAULT_ACCEL = "tcg,thread=single"
GUEST_CPUS = 2                # the guest's vCPUs

MARK = "@@stapx "             # prefix of the guest's control lines on ttyS1
BATCH_BYTES = 256 << 20       # most job bytes in one initramfs (the guest has 1 GiB)


def bad_log_lines(text):
    """The lines of a kernel log that show a kernel problem."""
    return [l for l in text.splitlines() if any(p in l for p in BAD_LOG)]


@dataclasses.dataclass
class Job:
    """One stapx-run invocation in the guest, in directory /t/NAME."""
    name: str                 # unique; also the guest directory name
    module: str               # host path of the .ko
    args: list = dataclasses.field(default_factory=list)   # stapx-run args before the module
    files: dict = dataclasses.field(default_factory=dict)  # guest file name -> host path
    timeout: float = DEFAULT_JOB_TIMEOUT
    kmods: list = dataclasses.field(default_factory=list)  # guest files of `files` to insmod first, rmmod after
    env: list = dataclasses.field(default_factory=list)    # "VAR=VALUE" strings for stapx-run's environment
    command: list = None      # argv to run instead of `stapx-run ARGS MODULE` (harness self-tests)
    # Absolute guest path -> host path: files put outside /t/NAME (a test
    # program at the path it has on the host, where stapx read it).
    abs_files: dict = dataclasses.field(default_factory=dict)
    links: dict = dataclasses.field(default_factory=dict)  # guest file name -> symlink target
    abs_links: dict = dataclasses.field(default_factory=dict)  # absolute guest path -> symlink target
    # Kernel command-line options the job needs (module.sig_enforce=1): its
    # guest boots with them, with the other jobs that need the same.
    append: str = ""
    busy: bool = False        # every CPU kept busy from before the job's module loads until it is gone


@dataclasses.dataclass
class Result:
    """What happened to one job.  state is one of:
    done     stapx-run ran to its end (maybe after a timeout); see status
    crashed  the guest died (panic) or hung while the job ran
    not-run  the job never started (an earlier crash, boot failure)"""
    name: str
    state: str = "not-run"
    status: int = None        # stapx-run's exit status (128+N: killed by signal N)
    stdout: bytes = b""
    stderr: bytes = b""
    dmesg: str = ""           # kernel log produced during the job
    timed_out: bool = False   # the watchdog sent SIGINT
    killed: bool = False      # ... and then SIGKILL
    leftover: list = dataclasses.field(default_factory=list)  # modules still loaded after stapx-run exited
    console: str = ""         # console output of a crashed job
    note: str = ""            # why the job crashed / did not run
    seconds: float = None     # host time from the job's start to its last result

    @property
    def problems(self):
        """Kernel log lines that show a kernel problem."""
        return bad_log_lines(self.dmesg) + bad_log_lines(self.console)


# ---------------------------------------------------------------- kernel

def find_kernel(kernel_dir, fetch=True, release=None):
    """(release, vmlinuz) of the default kernel in KERNEL_DIR (laid out by
    fetch-kernel), or of RELEASE there, running fetch-kernel first when it
    is missing and FETCH is true."""
    def lookup():
        rel = release
        if rel is None:
            try:
                with open(os.path.join(kernel_dir, "release")) as f:
                    rel = f.read().strip()
            except OSError:
                return None, None
        path = os.path.join(kernel_dir, rel, "boot", "vmlinuz-" + rel)
        return (rel, path) if os.path.isfile(path) else (None, None)

    rel, path = lookup()
    if path is None and fetch:
        subprocess.run([FETCH_KERNEL, kernel_dir] + ([release] if release else []),
                       check=True, stdout=subprocess.DEVNULL)
        rel, path = lookup()
    if path is None:
        raise RuntimeError(f"no kernel in {kernel_dir} (run {FETCH_KERNEL} {kernel_dir})")
    return rel, path


def kbuild_dir(release, kernel_dir=None):
    """The guest kernel's kbuild tree: installed where stapx's pass 4 looks
    for it, else unpacked by fetch-kernel into KERNEL_DIR/RELEASE/build."""
    dirs = [f"/lib/modules/{release}/build", f"/usr/src/linux-headers-{release}"]
    if kernel_dir:
        dirs.append(os.path.abspath(os.path.join(kernel_dir, release, "build")))
    for d in dirs:
        if os.path.isfile(os.path.join(d, "Makefile")):
            return d
    return None


def stapx_target(release, kernel_dir=None):
    """What stapx's -r gets for RELEASE: the release where its headers are
    installed, else the kbuild tree fetch-kernel unpacked."""
    kb = kbuild_dir(release, kernel_dir)
    return kb if kb and not kb.startswith(("/lib/modules/", "/usr/src/")) else release


KMOD_BUILD_TIMEOUT = 600  # seconds for one kbuild of a test module


def build_kmod(src, ko, release, out_root, prefix, kernel_dir=None):
    """Build the kernel module KO from the Kbuild directory SRC for RELEASE,
    once per source version: (directory holding KO, None) or (None, why it
    failed).  The build is cached in OUT_ROOT/PREFIX-HASH/."""
    kb = kbuild_dir(release, kernel_dir)
    if not kb:
        return None, f"no kbuild tree for {release} (linux-headers-{release})"
    h = hashlib.sha256(release.encode() + b"\0" + kb.encode())
    names = sorted(os.listdir(src))
    for n in names:
        with open(os.path.join(src, n), "rb") as f:
            h.update(n.encode() + b"\0" + f.read() + b"\0")
    out = os.path.join(out_root, prefix + "-" + h.hexdigest()[:16])
    if os.path.isfile(os.path.join(out, ko)):
        return out, None
    os.makedirs(out_root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=prefix + ".", dir=out_root)
    for n in names:
        shutil.copy(os.path.join(src, n), tmp)
    # (No BTF: it would need pahole; stapx builds its modules the same way.)
    p = subprocess.run(["make", "-C", kb, f"M={tmp}", "CONFIG_DEBUG_INFO_BTF_MODULES=", "modules"],
                       stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=KMOD_BUILD_TIMEOUT)
    if p.returncode != 0 or not os.path.isfile(os.path.join(tmp, ko)):
        shutil.rmtree(tmp, ignore_errors=True)
        return None, "make failed:\n" + (p.stdout + p.stderr).decode("utf-8", "replace")
    try:
        os.rename(tmp, out)
    except OSError:  # built meanwhile by another run
        shutil.rmtree(tmp, ignore_errors=True)
    return out, None


def fetch_debmods(release, fixtures, names):
    """Extract the guest kernel's modules NAMES and the modules they depend
    on from its Debian package, once, into FIXTURES/debmods-R/:
    (directory, {name: [file names to insmod, dependencies first]}, None)
    or (None, None, why it failed)."""
    out = os.path.join(fixtures, "debmods-" + release)
    os.makedirs(out, exist_ok=True)
    deb, members = None, None
    deps = {}  # module name: the names it depends on
    todo = [n.replace("-", "_") for n in names]
    while todo:
        missing = [n for n in todo if not os.path.isfile(os.path.join(out, n + ".ko"))]
        if missing:
            if deb is None:
                p = subprocess.run([FETCH_KERNEL,
                                    "--deb", release], stdin=subprocess.DEVNULL, capture_output=True)
                if p.returncode != 0:
                    return None, None, "fetch-kernel --deb failed:\n" + p.stderr.decode("utf-8", "replace")
                deb = p.stdout.decode().strip()
                p = subprocess.run(["dpkg-deb", "-c", deb], stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True)
                members = {}
                for line in p.stdout.splitlines():
                    path = line.split()[-1]
                    # (6.12's modules are compressed: .ko.xz)
                    m = re.fullmatch(r"(.*)\.ko(\.xz|\.zst|\.gz)?", os.path.basename(path))
                    if m:
                        members[m.group(1).replace("-", "_")] = path
            for n in missing:
                if n not in members:
                    return None, None, f"no module {n}.ko in {deb}"
            with tempfile.TemporaryDirectory(dir=out) as tmp:
                p = subprocess.run(f"dpkg-deb --fsys-tarfile {shlex.quote(deb)} | tar -x -C {shlex.quote(tmp)} "
                                   + " ".join(shlex.quote(members[n]) for n in missing),
                                   shell=True, stdin=subprocess.DEVNULL, capture_output=True)
                if p.returncode != 0:
                    return None, None, f"cannot extract modules from {deb}:\n" + p.stderr.decode("utf-8", "replace")
                for n in missing:
                    src = os.path.join(tmp, members[n])
                    unpack = {".xz": ["xz", "-dc"], ".zst": ["zstd", "-dc"], ".gz": ["gzip", "-dc"]}
                    ext = os.path.splitext(src)[1]
                    if ext in unpack:  # the guest's busybox insmod takes plain .ko files
                        with open(src[:-len(ext)], "wb") as f:
                            p = subprocess.run(unpack[ext] + [src], stdout=f, stderr=subprocess.PIPE)
                        if p.returncode != 0:
                            return None, None, f"cannot unpack {members[n]}: {p.stderr.decode().strip()}"
                        src = src[:-len(ext)]
                    os.replace(src, os.path.join(out, n + ".ko"))
        more = []
        for n in todo:
            if n in deps:
                continue
            p = subprocess.run(["modinfo", "-F", "depends", os.path.join(out, n + ".ko")],
                               capture_output=True, text=True)
            if p.returncode != 0:
                return None, None, f"modinfo {n}.ko failed: {p.stderr.strip()}"
            deps[n] = [d.replace("-", "_") for d in p.stdout.strip().split(",") if d]
            more += [d for d in deps[n] if d not in deps]
        todo = sorted(set(more))

    def order(name, seq):
        if name + ".ko" not in seq:
            for d in deps[name]:
                order(d, seq)
            seq.append(name + ".ko")
        return seq

    return out, {n: order(n.replace("-", "_"), []) for n in names}, None


def shared_libraries(prog):
    """The files a dynamically linked PROG loads, as ldd lists them: {path
    the loader opens: its real path}.  RuntimeError if ldd cannot say."""
    try:
        p = subprocess.run(["ldd", prog], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"cannot run ldd on {prog}: {e}") from e
    libs = {}
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(?:\S+ => )?(/\S+) \(0x", line)
        if m:
            libs[m.group(1)] = os.path.realpath(m.group(1))
    if p.returncode != 0 or not libs:
        raise RuntimeError(f"ldd {prog} found no libraries: {p.stderr.strip() or '(no stderr)'}")
    return libs


# ---------------------------------------------------------------- initramfs

class Cpio:
    """Writer of a newc cpio archive, built in memory (no root needed for
    device nodes, no dependency on the cpio tool)."""

    def __init__(self):
        self.parts = []
        self.ino = 1
        self.dirs = set()

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 2 if stat.S_ISDIR(mode) else 1, 0,
                  len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08x" % v for v in fields)
        self.parts += [hdr, name_b, b"\0" * (-(len(hdr) + len(name_b)) % 4),
                       data, b"\0" * (-len(data) % 4)]

    def mkdir(self, path):
        path = path.strip("/")
        if not path or path in self.dirs:
            return
        self.mkdir(os.path.dirname(path))
        self.dirs.add(path)
        self._entry(path, stat.S_IFDIR | 0o755)

    def file(self, path, data, mode=0o644):
        path = path.strip("/")
        self.mkdir(os.path.dirname(path))
        self._entry(path, stat.S_IFREG | mode, data)

    def symlink(self, path, target):
        path = path.strip("/")
        self.mkdir(os.path.dirname(path))
        self._entry(path, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, path, major, minor, mode=0o600):
        path = path.strip("/")
        self.mkdir(os.path.dirname(path))
        self._entry(path, stat.S_IFCHR | mode, rdev=(major, minor))

    def data(self):
        self._entry("TRAILER!!!", 0)
        return b"".join(self.parts)


def check_static(path):
    """Raise unless PATH is a script or an ELF without a program interpreter
    (the initramfs has no libc)."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:2] == b"#!":
            return
        if head[:4] != b"\x7fELF" or head[4] != 2:
            raise RuntimeError(f"{path}: not a 64-bit ELF executable or script")
        phoff = int.from_bytes(head[32:40], "little")
        phentsize = int.from_bytes(head[54:56], "little")
        phnum = int.from_bytes(head[56:58], "little")
        f.seek(phoff)
        for _ in range(phnum):
            ph = f.read(phentsize)
            if int.from_bytes(ph[0:4], "little") == 3:  # PT_INTERP
                raise RuntimeError(f"{path}: dynamically linked; the guest "
                                   "has no libc, link stapx-run statically")


INIT_HEAD = r"""#!/bin/sh
# /init of the stapx test guest, generated by testsuite/vm/guest.py.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
# Files that jobs need at absolute paths (under /tmp too): staged in /abs.
[ -d /abs ] && cp -a /abs/. /
stty -F /dev/ttyS1 raw -echo 115200
exec 3>/dev/ttyS1
cat >/tmp/badlog <<'EOF'
@BAD_LOG@
EOF
KILL_GRACE=@KILL_GRACE@

say() { echo "@@stapx $*" >&3; }
# send WHAT FILE: FILE's bytes, base64-encoded
send() { say "data $1"; base64 "$2" >&3; say "."; }
# badlog FILE: does FILE hold a kernel problem?
badlog() { grep -qF -f /tmp/badlog "$1"; }

# runcmd TIMEOUT COMMAND...: run COMMAND under a watchdog; sets rc.
runcmd() {
	t=$1
	shift
	# Watchdog: SIGINT to stapx-run after $t s, SIGKILL to its session later.
	(
		sleep "$t"
		pid=$(cat .pid 2>/dev/null) || exit
		: >.timeout
		kill -INT "$pid" 2>/dev/null
		sleep "$KILL_GRACE"
		if kill -0 "$pid" 2>/dev/null; then
			: >.killed
			kill -KILL "-$pid" 2>/dev/null
		fi
	) &
	wd=$!
	# Own session: the SIGKILL reaches trigger processes too.  Run in the
	# foreground, so SIGINT is not ignored as for a background job.  Only
	# stdin, stdout and stderr: the results port (3) is /init's, and a test
	# program's first descriptor must be 3.
	setsid sh -c 'echo $$ >.pid; exec "$@"' job "$@" </dev/null >stdout 2>stderr 3>&-
	rc=$?
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
	pid=$(cat .pid 2>/dev/null) && kill -KILL "-$pid" 2>/dev/null
}

# busy_start, busy_stop: load on every CPU (a jobs's .busy): a read/write
# loop pinned to each CPU (vfs_read, vfs_write, the syscall path) and one
# fork/exec loop (the scheduler, allocation, exec, exit).
busy_start() {
	busy=
	i=0
	n=$(grep -c '^processor' /proc/cpuinfo)
	while [ "$i" -lt "$n" ]; do
		taskset -c "$i" dd if=/dev/zero of=/dev/null bs=1 count=4000000000 2>/dev/null &
		busy="$busy $!"
		i=$((i + 1))
	done
	(while :; do /bin/true; done) &
	busy="$busy $!"
}
busy_stop() {
	[ -n "$busy" ] || return
	kill $busy 2>/dev/null
	wait $busy 2>/dev/null
	busy=
}

# runjob NAME TIMEOUT COMMAND...: run COMMAND in /t/NAME, report to ttyS1.
runjob() {
	name=$1 t=$2
	shift 2
	cd "/t/$name" || return
	echo "<2>stapx-vm: begin job $name" >/dev/kmsg
	dmesg -c >/dev/null
	say "begin $name"
	rm -f .pid .timeout .killed
	: >stdout
	: >stderr
	# Modules the job needs (.kmods): loaded first, else the job does not
	# run (status 125); unloaded after it.
	rc=
	[ -e .busy ] && busy_start
	for k in $(cat .kmods 2>/dev/null); do
		insmod "$k" 2>.insmod && continue
		echo "stapx-vm: insmod $k failed: $(cat .insmod)" >stderr
		rc=125
		break
	done
	[ -z "$rc" ] && runcmd "$t" "$@"
	# Unloaded last first: a module before those it depends on.
	rev=
	for k in $(cat .kmods 2>/dev/null); do
		k=${k##*/}
		rev="${k%.ko} $rev"
	done
	for k in $rev; do rmmod "$k" 2>/dev/null; done
	say "status $rc"
	[ -e .timeout ] && say timeout
	[ -e .killed ] && say killed
	# Modules left loaded (the guest loads none of its own).
	left=$(cut -d' ' -f1 /proc/modules)
	[ -n "$left" ] && say "leftover" $left
	# (Never rmmod -f: a module still in use, such as a filesystem a
	# killed trigger left mounted, would leave the kernel pointing into
	# freed memory. What stays is "stuck", and the guest reboots.)
	for m in $left; do rmmod "$m" >/dev/null 2>&1; done
	stuck=$(cut -d' ' -f1 /proc/modules)
	busy_stop
	dmesg -c >.dmesg
	send stdout stdout
	send stderr stderr
	send dmesg .dmesg
	say "end $name"
	cd /
	# Go on only with a clean kernel: run_all() reboots for the rest.
	if badlog "/t/$name/.dmesg"; then
		say "stop kernel problem in $name"
		poweroff -f
	elif [ -n "$stuck" ]; then
		say "stop cannot unload" $stuck
		poweroff -f
	fi
}

dmesg >/tmp/boot.dmesg
dmesg -c >/dev/null
say "ready $(uname -r)"
send bootlog /tmp/boot.dmesg
"""

INIT_TAIL = r"""
say "alldone"
poweroff -f
"""


def make_init(jobs):
    """The /init script that runs JOBS."""
    head = (INIT_HEAD.replace("@BAD_LOG@", "\n".join(BAD_LOG))
            .replace("@KILL_GRACE@", str(KILL_GRACE)))
    lines = []
    for j in jobs:
        ko = os.path.basename(j.module)
        argv = list(j.command) if j.command else ["stapx-run"] + list(j.args) + [ko]
        if j.env:
            argv = ["env"] + list(j.env) + argv
        lines.append(" ".join(shlex.quote(str(a)) for a in
                              ["runjob", j.name, int(max(1, j.timeout))] + argv))
    return head + "\n".join(lines) + "\n" + INIT_TAIL


def read_job_file(path):
    """The bytes of a job file; modules lose their debug info (often 95% of
    a kbuild .ko, useless in the guest) when binutils' strip is there."""
    if path.endswith(".ko") and shutil.which("strip"):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "m.ko")
            if subprocess.run(["strip", "--strip-debug", "-o", out, path],
                              stderr=subprocess.DEVNULL).returncode == 0:
                with open(out, "rb") as f:
                    return f.read()
    with open(path, "rb") as f:
        return f.read()


def build_initramfs(jobs, stapx_run, out_path, busybox="/bin/busybox"):
    """Write the gzip'd newc initramfs that runs JOBS with STAPX_RUN."""
    check_static(stapx_run)
    c = Cpio()
    for d in ("bin", "dev", "proc", "sys", "tmp", "t", "root", "etc"):
        c.mkdir(d)
    c.chardev("dev/console", 5, 1)
    c.chardev("dev/null", 1, 3, 0o666)
    with open(busybox, "rb") as f:
        c.file("bin/busybox", f.read(), 0o755)
    applets = subprocess.run([busybox, "--list"], check=True, capture_output=True,
                             text=True).stdout.split()
    for a in applets:
        if a != "busybox" and "/" not in a:
            c.symlink("bin/" + a, "busybox")
    c.symlink("sbin", "bin")
    with open(stapx_run, "rb") as f:
        c.file("bin/stapx-run", f.read(), 0o755)
    # stapx-merge (bulk mode's per-CPU files) where the build put it.
    merge = os.path.join(os.path.dirname(stapx_run), "stapx-merge")
    if os.path.exists(merge):
        check_static(merge)
        with open(merge, "rb") as f:
            c.file("bin/stapx-merge", f.read(), 0o755)
    names = set()
    staged = set()
    for j in jobs:
        if j.name in names or not re.fullmatch(r"[A-Za-z0-9_.+-]+", j.name) or j.name[0] == ".":
            raise ValueError(f"bad or duplicate job name {j.name!r}")
        names.add(j.name)
        files = dict(j.files)
        files[os.path.basename(j.module)] = j.module
        for gname, host in files.items():
            c.file(f"t/{j.name}/{gname}", read_job_file(host), 0o755)
        for gpath in list(j.abs_files) + list(j.abs_links):
            if not os.path.isabs(gpath) or gpath.startswith(("/t/", "/bin/", "/proc/", "/sys/", "/dev/")):
                raise ValueError(f"bad absolute guest path {gpath!r}")
        # (Staged under /abs, copied to their paths by /init; a file or
        # link several jobs share, once.)
        for gpath, host in j.abs_files.items():
            if gpath not in staged:
                staged.add(gpath)
                c.file("abs" + gpath, read_job_file(host), 0o755)
        for gpath, target in j.abs_links.items():
            if gpath not in staged:
                staged.add(gpath)
                c.symlink("abs" + gpath, target)
        for gname, target in j.links.items():
            c.symlink(f"t/{j.name}/{gname}", target)
        if j.kmods:
            c.file(f"t/{j.name}/.kmods", "".join(k + "\n" for k in j.kmods).encode())
        if j.busy:
            c.file(f"t/{j.name}/.busy", b"")
    c.file("init", make_init(jobs).encode(), 0o755)
    with open(out_path, "wb") as f:
        f.write(gzip.compress(c.data(), compresslevel=1))


# ---------------------------------------------------------------- boot

def preset_lpj(vmlinuz):
    """lpj=N for the guest's command line: its delay loop's count per jiffy,
    so that no CPU calibrates its own. Under single-threaded TCG the second
    vCPU's calibration fails ("calibrate_delay_direct() failed to get a good
    estimate") and leaves it a count near zero: udelay(), mdelay() and the
    runtime's lock back-off then do not wait on that CPU. The kernel counts
    delays in TSC cycles, and TCG's TSC runs at the host's rate: N is the
    host's MHz (/proc/cpuinfo) over the guest kernel's CONFIG_HZ. None when
    either is unknown."""
    try:
        with open("/proc/cpuinfo") as f:
            mhz = float(re.search(r"^cpu MHz\s*:\s*([0-9.]+)", f.read(), re.M).group(1))
        config = os.path.join(os.path.dirname(vmlinuz),
                              os.path.basename(vmlinuz).replace("vmlinuz-", "config-", 1))
        with open(config) as f:
            hz = int(re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M).group(1))
    except (OSError, AttributeError, ValueError):
        return None
    return f"lpj={int(mhz * 1e6 / hz)}"


def qemu_command(vmlinuz, initrd, console_log, results_log, memory=1024, smp=GUEST_CPUS, append_more="",
                 hostfwd=None):
    """QEMU's command line; with HOSTFWD (a port), an e1000 network card
    (its driver is a module: the job loads e1000.ko) on QEMU's user-mode
    network, and 127.0.0.1:HOSTFWD on the host forwarded to the guest's
    port 22."""
    # printk.devkmsg=on: /init's per-job markers must not be rate-limited.
    extra = " ".join(x for x in [os.environ.get("STAPX_VM_APPEND", ""), append_more] if x)
    lpj = None if "lpj=" in extra else preset_lpj(vmlinuz)
    # noirqdebug: on PREEMPT_RT the serial ports' handlers are threads, and
    # with the host busy the kernel once counted 100,000 "unhandled"
    # interrupts of ttyS1 (the results port), disabled IRQ 3 ("nobody
    # cared") and the guest's results stopped.
    append = " ".join(x for x in ["console=ttyS0 panic=-1 quiet loglevel=4 printk.devkmsg=on noirqdebug",
                                  lpj, extra] if x)
    accel = os.environ.get("STAPX_VM_ACCEL") or DEFAULT_ACCEL
    return ["qemu-system-x86_64", "-accel", accel, "-cpu", "max",
            "-smp", str(smp), "-m", str(memory),
            "-nographic", "-nodefaults", "-no-reboot", "-monitor", "none",
            "-kernel", vmlinuz, "-initrd", initrd, "-append", append,
            "-serial", "file:" + console_log, "-serial", "file:" + results_log] + (
                ["-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{hostfwd}-:22",
                 "-device", "e1000,netdev=net0,romfile="] if hostfwd else [])


class _Parser:
    """Incremental parser of the results port."""

    def __init__(self, jobs):
        self.jobs = {j.name: j for j in jobs}
        self.results = {j.name: Result(j.name) for j in jobs}
        self.buf = b""
        self.ready = False
        self.release = None
        self.bootlog = ""
        self.current = None      # Result of the job in progress
        self.begun_at = None     # when it began (host time)
        self.data_what = None    # block being received
        self.data = []
        self.stop = None         # the guest stopped early: why
        self.alldone = False
        self.last_event = time.monotonic()

    def feed(self, chunk):
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        for raw in lines:
            self._line(raw.rstrip(b"\r").decode("utf-8", "replace"))

    def _line(self, line):
        self.last_event = time.monotonic()
        if not line.startswith(MARK):
            if self.data_what is not None:
                self.data.append(line)
            return
        word, _, arg = line[len(MARK):].partition(" ")
        r = self.current
        if word == "ready":
            self.ready, self.release = True, arg
        elif word == "data":
            self.data_what, self.data = arg, []
        elif word == ".":
            blob = base64.b64decode("".join(self.data))
            what, self.data_what = self.data_what, None
            if what == "bootlog":
                self.bootlog = blob.decode("utf-8", "replace")
            elif r is not None and what in ("stdout", "stderr"):
                setattr(r, what, blob)
            elif r is not None and what == "dmesg":
                r.dmesg = blob.decode("utf-8", "replace")
        elif word == "begin" and arg in self.results:
            self.current = self.results[arg]
            self.begun_at = time.monotonic()
        elif r is None:
            if word == "alldone":
                self.alldone = True
            elif word == "stop":
                self.stop = arg
        elif word == "status":
            r.status = int(arg)
        elif word == "timeout":
            r.timed_out = True
        elif word == "killed":
            r.killed = True
        elif word == "leftover":
            r.leftover = arg.split()
        elif word == "end":
            r.state = "done"
            r.seconds = time.monotonic() - self.begun_at
            self.current = None

    def deadline(self, slack):
        """Host time by which the guest must show progress."""
        if not self.ready:
            return None  # handled by the caller from the start time
        if self.current is not None and self.current.status is None:
            # stapx-run is running: the guest's watchdog ends it in time.
            j = self.jobs[self.current.name]
            return self.begun_at + j.timeout + KILL_GRACE + slack
        return self.last_event + slack


def boot(jobs, vmlinuz, stapx_run, workdir, boot_timeout=BOOT_TIMEOUT,
         slack=SLACK, log=None, hostfwd=None):
    """Boot one guest that runs JOBS in order; return (results, info).

    results: one Result per job, in order.  Jobs after a crash, a hang or an
    early stop (kernel problem) are "not-run"; the caller may boot again for
    them (see run_all).  info: dict with ready (bool), release, bootlog,
    console (whole console log), stop (why the guest stopped early or None),
    boot_seconds, total_seconds.  Files are left in WORKDIR.  HOSTFWD:
    see qemu_command."""
    os.makedirs(workdir, exist_ok=True)
    initrd = os.path.join(workdir, "initramfs.gz")
    console_log = os.path.join(workdir, "console.log")
    results_log = os.path.join(workdir, "results.log")
    build_initramfs(jobs, stapx_run, initrd)
    for p in (console_log, results_log):
        open(p, "wb").close()
    cmd = qemu_command(vmlinuz, initrd, console_log, results_log,
                       append_more=jobs[0].append if jobs else "", hostfwd=hostfwd)
    with open(os.path.join(workdir, "qemu.cmd"), "w") as f:
        f.write(" ".join(shlex.quote(a) for a in cmd) + "\n")

    parser = _Parser(jobs)
    start = time.monotonic()
    boot_seconds = None
    hung = None
    with open(results_log, "rb") as res, \
         open(os.path.join(workdir, "qemu.stderr"), "wb") as qerr:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=qerr, stderr=qerr)
        try:
            while True:
                exited = proc.poll() is not None
                parser.feed(res.read())
                if parser.ready and boot_seconds is None:
                    boot_seconds = time.monotonic() - start
                    if log:
                        log(f"guest ready after {boot_seconds:.1f} s")
                if exited:
                    break
                now = time.monotonic()
                dl = parser.deadline(slack)
                if dl is None:
                    dl = start + boot_timeout
                if now > dl:
                    hung = ("guest did not boot within %d s" % boot_timeout
                            if not parser.ready else
                            "guest hung (no progress for %d s)" % int(now - parser.last_event))
                    proc.kill()
                    proc.wait()
                    parser.feed(res.read())
                    break
                time.sleep(0.1)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    with open(console_log, "rb") as f:
        console = f.read().decode("utf-8", "replace").replace("\r\n", "\n")
    with open(os.path.join(workdir, "qemu.stderr"), "rb") as f:
        qemu_err = f.read().decode("utf-8", "replace").strip()

    r = parser.current
    if r is not None:
        # The guest died or hung in the middle of this job.
        r.state = "crashed"
        marker = f"stapx-vm: begin job {r.name}"
        tail = console[console.rfind(marker):] if marker in console else console
        r.console = "\n".join(tail.splitlines()[:400])
        bad = bad_log_lines(r.console)
        r.note = hung or "guest crashed during the job" + (
            ": " + re.sub(r"^\[[ 0-9.]+\] ", "", bad[0]) if bad else "")
    elif not parser.alldone:
        why = hung or parser.stop or "guest died between jobs"
        for res_ in parser.results.values():
            if res_.state == "not-run":
                res_.note = why
    if not parser.ready:
        for res_ in parser.results.values():
            res_.note = hung or "guest did not boot (see console)"
            if qemu_err:
                res_.note += ": " + qemu_err.splitlines()[-1]
    info = dict(ready=parser.ready, release=parser.release, bootlog=parser.bootlog,
                console=console, stop=parser.stop, qemu_stderr=qemu_err,
                boot_seconds=boot_seconds, total_seconds=time.monotonic() - start)
    return [parser.results[j.name] for j in jobs], info


def run_all(jobs, vmlinuz, stapx_run, workdir, log=None, **kw):
    """Run all JOBS, booting again after each crash or early stop to run the
    remaining ones.  Returns (results in order, list of boot infos).  Boot N's
    files are in WORKDIR/boot-N."""
    def size(j):
        return sum(os.path.getsize(p) for p in [j.module, *j.files.values()])

    results = {}
    infos = []
    # Jobs that need kernel options of their own last, grouped by them.
    todo = sorted(jobs, key=lambda j: (j.append != "", j.append))
    while todo:
        n = len(infos) + 1
        if log and n > 1:
            log(f"rebooting for {len(todo)} remaining job(s)")
        # A prefix of todo that fits in the guest, of jobs that want the
        # same kernel command line.
        batch, total = [], 0
        for j in todo:
            total += size(j)
            if batch and (total > BATCH_BYTES or j.append != batch[0].append):
                break
            batch.append(j)
        rs, info = boot(batch, vmlinuz, stapx_run, os.path.join(workdir, f"boot-{n}"),
                        log=log, **kw)
        infos.append(info)
        for r in rs:
            if r.state != "not-run":
                results[r.name] = r
        rest = [j for j, r in zip(batch, rs) if r.state == "not-run"]
        if not info["ready"] or len(rest) == len(batch):
            for r in rs:  # no progress: give up on the rest
                results[r.name] = r
            for j in todo[len(batch):]:
                results[j.name] = Result(j.name, note="not run: the guest made no progress")
            break
        todo = rest + todo[len(batch):]
    return [results[j.name] for j in jobs], infos
