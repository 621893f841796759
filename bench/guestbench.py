"""guestbench: the QEMU guest shared by the in-guest benchmarks
(bench/probe-cost, bench/attach-cost).

One boot runs a list of jobs, each a shell command with a timeout; /init
sends each job's output and kernel log over a second serial port between
"@@bench begin NAME" and "@@bench end NAME STATUS" lines.  The guest runs
TCG with `-icount shift=0,sleep=off` on one CPU, so guest time advances
one nanosecond per executed instruction (see bench/README.md).

bpftrace runs in the guest from a Debian root (debootstrap --variant=minbase
--include=bpftrace), made once into ~/.cache/stapx/bpftrace-root and packed
once into ~/.cache/stapx/bpftrace-root.cpio.zst, the guest's initramfs under
the benchmark's own files.  Without it the guest is busybox alone.
"""

import gzip
import os
import shlex
import shutil
import stat
import subprocess
import sys
import time

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "testsuite", "vm"))
import guest  # noqa: E402

CACHE = os.path.join(os.path.expanduser("~"), ".cache", "stapx")
ROOT = os.path.join(CACHE, "bpftrace-root")
ROOT_CPIO = ROOT + ".cpio.zst"
MARK = "@@bench "

# Paths excluded from the packed Debian root: not needed to run bpftrace.
ROOT_SKIP = ("dev/", "proc/", "sys/", "run/", "tmp/", "var/cache/", "var/lib/apt/", "var/log/",
             "usr/share/doc/", "usr/share/man/", "usr/share/locale/", "usr/share/info/",
             "usr/share/zoneinfo/", "usr/lib/x86_64-linux-gnu/gconv/", "usr/share/i18n/")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def kbuild_dir(release, prog):
    for d in ("/lib/modules/%s/build" % release, "/usr/src/linux-headers-%s" % release):
        if os.path.isfile(os.path.join(d, "Makefile")):
            return d
    sys.exit("%s: no kbuild tree for %s (install linux-headers-%s)" % (prog, release, release))


def stapx_module(stapx, release, name, script, work, prog, keep=False, opts=()):
    """Build SCRIPT into WORK/NAME.ko with stapx -p4 and OPTS; its path.
    With KEEP the generated C is left next to it as NAME.c."""
    # (A file: 10,000 probe points are more than one argument may hold.)
    path = os.path.join(work, name + ".stp")
    with open(path, "w") as f:
        f.write(script + "\n")
    p = subprocess.run([stapx, "-p4", "-r", release, "-m", name, *opts, path],
                       cwd=work, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s: stapx -p4 failed for %s:\n%s" % (prog, name, p.stderr))
    ko = p.stdout.strip().splitlines()[-1]
    if not os.path.isabs(ko):
        ko = os.path.join(work, ko)
    if keep:
        c = subprocess.run([stapx, "-p3", "-r", release, "-m", name, *opts, path],
                           capture_output=True, text=True).stdout
        with open(os.path.join(work, name + ".c"), "w") as f:
            f.write(c)
    return ko


def ensure_root(log):
    """The Debian root with bpftrace (made once) and its packed cpio."""
    if not os.path.isfile(os.path.join(ROOT, "usr/bin/bpftrace")):
        if not shutil.which("debootstrap"):
            sys.exit("no %s and no debootstrap (apt-get install debootstrap), "
                     "or run with --no-bpftrace" % ROOT)
        log("making the bpftrace root in %s (once, a few minutes)" % ROOT)
        tmp = ROOT + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        run(["debootstrap", "--variant=minbase", "--include=bpftrace", "bookworm", tmp,
             "http://deb.debian.org/debian"], stdout=subprocess.DEVNULL)
        os.rename(tmp, ROOT)
        if os.path.exists(ROOT_CPIO):
            os.unlink(ROOT_CPIO)
    if not os.path.isfile(ROOT_CPIO):
        log("packing %s (once)" % ROOT_CPIO)
        c = guest.Cpio()
        for dirpath, dirnames, filenames in os.walk(ROOT):
            rel = os.path.relpath(dirpath, ROOT)
            rel = "" if rel == "." else rel + "/"
            if any((rel).startswith(s) for s in ROOT_SKIP):
                c.mkdir(rel)
                dirnames[:] = []
                continue
            if rel:
                c.mkdir(rel)
            for name in sorted(filenames) + sorted(d for d in dirnames
                                                    if os.path.islink(os.path.join(dirpath, d))):
                path = os.path.join(dirpath, name)
                st = os.lstat(path)
                if stat.S_ISLNK(st.st_mode):
                    c.symlink(rel + name, os.readlink(path))
                elif stat.S_ISREG(st.st_mode):
                    with open(path, "rb") as f:
                        c.file(rel + name, f.read(), stat.S_IMODE(st.st_mode))
        data = c.data()
        tmp = ROOT_CPIO + ".tmp"
        with open(tmp, "wb") as f:
            subprocess.run(["zstd", "-q", "-T0", "-6", "-c"], input=data, stdout=f, check=True)
        os.rename(tmp, ROOT_CPIO)
    return ROOT_CPIO


INIT = r"""#!/bench/busybox sh
# /init of the benchmark guest (generated by bench/guestbench.py).
B=/bench/busybox
export B
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
$B mkdir -p /proc /sys /dev /tmp
$B mount -t proc proc /proc
$B mount -t sysfs sysfs /sys
$B mount -t devtmpfs devtmpfs /dev
$B mount -t debugfs debugfs /sys/kernel/debug
$B mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
$B mount -t tmpfs tmpfs /tmp
# Files that jobs need at absolute paths (under /tmp too): staged in /abs.
[ -d /abs ] && $B cp -a /abs/. /
$B stty -F /dev/ttyS1 raw -echo 115200
exec 3>/dev/ttyS1
say() { echo "@@bench $*" >&3; }
# job NAME TIMEOUT COMMAND: run it, send its output and the kernel log.
job() {
	name=$1 t=$2
	shift 2
	$B dmesg -c >/dev/null
	say "begin $name"
	$B timeout "$t" "$@" >/tmp/out 2>&1 </dev/null
	rc=$?
	$B cat /tmp/out >&3
	$B dmesg -c >/tmp/dmesg
	$B sed 's/^/dmesg: /' /tmp/dmesg >&3
	say "end $name $rc"
}
say "ready $($B uname -r)"
@JOBS@
say alldone
$B poweroff -f
"""


def boot(vmlinuz, stapx_run, files, jobs, root_cpio, work, log, abs_files=None, smp=1, icount=True,
         cpu="max"):
    """Boot once and run JOBS ((name, timeout, shell command, ...) in order)
    with FILES ({guest name: host path}) and stapx-run in /bench, and
    ABS_FILES ({absolute guest path: host path}: a program stapx read at
    that path must be there in the guest too); the text the guest sent on
    its results port.  SMP: the guest's CPUs (still one host thread, and
    instructions counted across them).  ICOUNT: guest time counts
    instructions; without it (for what does not time, e.g. memory) a guest
    of more than one CPU boots here.  CPU: QEMU's -cpu model."""
    c = guest.Cpio()
    c.mkdir("bench")
    c.chardev("dev/console", 5, 1)
    c.chardev("dev/null", 1, 3, 0o666)
    with open("/bin/busybox", "rb") as f:
        c.file("bench/busybox", f.read(), 0o755)
    guest.check_static(stapx_run)
    for gname, host in dict(files, **{"stapx-run": stapx_run}).items():
        c.file("bench/" + gname, guest.read_job_file(host), 0o755)
    for gpath, host in (abs_files or {}).items():
        if not os.path.isabs(gpath) or gpath.startswith(("/bench/", "/proc/", "/sys/", "/dev/")):
            raise ValueError("bad absolute guest path %r" % gpath)
        # (Copied into place by /init, after /tmp is mounted.)
        c.file("abs" + gpath, guest.read_job_file(host), 0o755)
    body = "\n".join("job %s %d %s" % (name, t, cmd) for name, t, cmd, *_ in jobs)
    c.file("init", INIT.replace("@JOBS@", body).encode(), 0o755)
    if not root_cpio:
        # The busybox guest: its own applets at /bin.
        applets = subprocess.run(["/bin/busybox", "--list"], check=True, capture_output=True,
                                 text=True).stdout.split()
        for ap in applets:
            if ap != "busybox" and "/" not in ap:
                c.symlink("bin/" + ap, "../bench/busybox")
    initrd = os.path.join(work, "initrd")
    with open(initrd, "wb") as f:
        if root_cpio:
            with open(root_cpio, "rb") as r:
                shutil.copyfileobj(r, f)
        f.write(gzip.compress(c.data(), compresslevel=1))
    console = os.path.join(work, "console.log")
    results = os.path.join(work, "results.log")
    cmd = ["qemu-system-x86_64", "-accel", "tcg,thread=single",
           *(["-icount", "shift=0,sleep=off"] if icount else []), "-cpu", cpu, "-smp", str(smp),
           "-m", "3072" if root_cpio else "1024",
           "-nographic", "-nodefaults", "-no-reboot", "-monitor", "none",
           "-kernel", vmlinuz, "-initrd", initrd,
           "-append", "console=ttyS0 panic=-1 quiet loglevel=4 printk.devkmsg=on",
           "-serial", "file:" + console, "-serial", "file:" + results]
    with open(os.path.join(work, "qemu.cmd"), "w") as f:
        f.write(" ".join(shlex.quote(x) for x in cmd) + "\n")
    limit = 600 + sum(j[1] for j in jobs)
    log("booting the guest (%d jobs)" % len(jobs))
    start = time.monotonic()
    with open(os.path.join(work, "qemu.stderr"), "wb") as err:
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=err, stderr=err, timeout=limit)
        except subprocess.TimeoutExpired:
            log("the guest did not finish within %d s" % limit)
    log("guest done after %.0f s" % (time.monotonic() - start))
    with open(results, "rb") as f:
        return f.read().decode("utf-8", "replace").replace("\r", "")


def parse_results(text):
    """{job name: (exit status, [output lines])}."""
    out, cur, lines = {}, None, []
    for line in text.splitlines():
        if line.startswith(MARK):
            word, _, arg = line[len(MARK):].partition(" ")
            if word == "begin":
                cur, lines = arg, []
            elif word == "end" and cur:
                name, _, rc = arg.rpartition(" ")
                out[name] = (int(rc), lines)
                cur = None
        elif cur is not None:
            lines.append(line)
    return out
