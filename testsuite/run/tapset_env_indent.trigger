STAPX_ENV=hello-world STAPX_EMPTY= STAPX_EQ=a=b STAPX_ENVX=wrong ./tapset_env_indent
