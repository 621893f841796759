for n in 3 7; do
	insmod ./stapx_fixture.ko || echo "insmod failed"
	echo "run $n" > /proc/stapx_fixture
	rmmod stapx_fixture || echo "rmmod failed"
done
