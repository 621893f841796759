exec ./process_statement_addr > /dev/null
