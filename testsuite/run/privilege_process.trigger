exec ./privilege_process > /dev/null
