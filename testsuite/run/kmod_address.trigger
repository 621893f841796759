echo "run 5" >/proc/stapx_fixture
