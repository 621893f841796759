# $1: this test's module. B (see tapset_namespaces.c) is the target of the
# first run, so IDs are seen from its namespaces; the second run has no
# target, so from stapx-run's (the initial ones). Polls for B's PID.
mod=$1
./tapset_namespaces >b.pid &
while [ ! -s b.pid ]; do :; done
b=$(cat b.pid)
echo "-x B:"
stapx-run -x "$b" "$mod"
echo "no target:"
stapx-run "$mod"
kill -9 "$b"
wait
