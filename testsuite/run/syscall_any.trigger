echo one >/dev/null
echo two >/dev/null
echo three >/dev/null
exit 0
