exec ./entry_global 1 > /dev/null
