echo "run 4" > /proc/stapx_fixture; cat /proc/stapx_fixture
echo "run 6" > /proc/stapx_fixture; cat /proc/sys/kernel/overflowuid
