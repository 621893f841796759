dmesg | grep -o "stapx printk test" >&2
