# How each function is attached: by a batch's ftrace_ops, or by the kprobe
# core (its own ftrace_ops). The kernel names __x64_sys_getpid's address
# __do_sys_getpid.
for f in vfs_read vfs_write __do_sys_getpid ksys_write; do
	line=$(grep "^$f " /sys/kernel/debug/tracing/enabled_functions)
	case $line in
	*_stpx_ftrace_hit*) echo "$f: ftrace batch";;
	*kprobe_ftrace_handler*) echo "$f: kprobe";;
	*) echo "$f: $line";;
	esac
done
echo "kprobes (at the function, or past its endbr64):"
awk '{sub(/\+0x[0-9a-f]+$/, "", $3); print $2, $3}' /sys/kernel/debug/kprobes/list | sort
cat /proc/version >/dev/null
