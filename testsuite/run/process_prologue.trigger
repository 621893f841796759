exec ./process_prologue >/dev/null
