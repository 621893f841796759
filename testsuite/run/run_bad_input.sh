# $1: this test's module. stapx_fixture.ko (.kmod: noload) is a real
# kernel module that stapx did not build.
mod=$1
try() {	# try WHAT ARGS...: stapx-run ARGS; its status and stderr
	what=$1
	shift
	stapx-run "$@" >out 2>err
	echo "$what: status $? $(cat err)"
}
try foreign stapx_fixture.ko
head -c 4096 "$mod" >cut.ko
try truncated cut.ko
try missing nosuch.ko
stapx-run "$mod" >&- 2>err
echo "closed stdout: status $? $(cat err)"
# The module runs; writing its first line fails.
try "-o /dev/full" -c true -o /dev/full "$mod"
# A second instance, tried by the first one's -c command.
echo 'stapx-run "$1" >/dev/null 2>err2; echo "second: status $? $(cat err2)" >second.out' >second.sh
stapx-run -c "sh second.sh $mod" "$mod" >first.out 2>first.err
echo "first: status $?"
cat first.out first.err second.out
exit 0
