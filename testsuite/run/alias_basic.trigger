sync; sync
