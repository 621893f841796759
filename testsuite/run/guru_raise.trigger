sh -c "cat /stapx-raise-test 2>/dev/null"
echo "status $?"
