exec ./process_nodwarf 3 > /dev/null
