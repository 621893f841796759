cp ./process_points ./other
./process_points 3 >/dev/null
./other 3 >/dev/null
