cd /tmp
cd /nonexistent 2>/dev/null
exit 0
