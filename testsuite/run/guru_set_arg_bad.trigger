echo "run 3" > /proc/stapx_fixture
