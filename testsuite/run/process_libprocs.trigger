./process_libprocs > /dev/null
./process_libprocs > /dev/null
