# Each process exits once, under its comm: busybox run under a name that
# is no applet exits at once.
ln -s /bin/busybox /tmp/syncsyncs
ln -s /bin/busybox /tmp/syncsyncsyncsyncsync
sync
/tmp/syncsyncs 2>/dev/null || true
/tmp/syncsyncsyncsyncsync 2>/dev/null || true
/tmp/syncsyncs 2>/dev/null || true
