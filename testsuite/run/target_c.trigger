# Children of the target do not count; the target itself exits with 3.
/bin/true
exit 3
