dd if=/dev/zero of=/dev/null bs=4321 count=1 2>/dev/null
dmesg -c > klog
has() { grep -q "$1" klog && echo yes || echo no; }
# newer kernels (6.12) put "UID: N" before the PID
echo "header names dd: $(has 'CPU: [0-9]* \(UID: [0-9]* \)*PID: [0-9]* Comm: dd ')"
echo "Call Trace: $(has 'Call Trace:')"
echo "dump_stack frame: $(has ' dump_stack')"
echo "ksys_read frame: $(has ' ksys_read+0x')"
echo "syscall entry frame: $(has ' do_syscall_64+0x')"
echo "other kernel problems:"
grep -e 'BUG:' -e 'kernel BUG at' -e 'Oops' -e 'WARNING: CPU:' -e 'general protection' \
	-e 'Unable to handle kernel' -e 'locking' -e 'inconsistent lock state' -e 'INFO: possible' \
	-e 'lockdep' -e 'anic' -e 'detected stall' -e 'blocked for more than' -e 'UBSAN:' klog
echo "(end)"
