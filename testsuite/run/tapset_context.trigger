sync
