exec ./tapset_tty
