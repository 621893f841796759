# $1: global_params.stp's module (-G g=4).
stapx-run "$1"
echo "status $?"
stapx-run "$1" n=-7 s=there g=0x10 current=2
echo "status $?"
# A value that is no number: the kernel refuses the load, and says why.
stapx-run "$1" n=seven >/dev/null 2>bad.err
echo "n=seven: status $?"
sed 's/global_params[^ ]*\.ko/MOD/' bad.err
