exec ./prog
