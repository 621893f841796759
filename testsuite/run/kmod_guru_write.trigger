echo "run 3" > /proc/stapx_fixture; cat /proc/stapx_fixture
echo "run 4" > /proc/stapx_fixture; cat /proc/stapx_fixture
