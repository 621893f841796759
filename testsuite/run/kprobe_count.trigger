sync; sync; sync
