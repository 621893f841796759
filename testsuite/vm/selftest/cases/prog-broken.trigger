exec ./prog-broken
