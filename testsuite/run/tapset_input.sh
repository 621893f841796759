# $1: this test's module. Two lines on stapx-run's standard input.
printf 'ab\ncd\n' | stapx-run "$1"
echo "status $?"
