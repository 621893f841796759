uname -a > /dev/null
