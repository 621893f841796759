cd /sys/kernel/debug/stapx/privilege_files && stat -c '%a %u %g %n' *
ls -A /sys/module/privilege_files/parameters 2>/dev/null | wc -l
cd /proc/systemtap/privilege_files && stat -c '%a %u %g %n' *
