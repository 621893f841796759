# ttyprintk is loaded before the test: unloaded, loaded again, and its tty
# (created on devtmpfs by the load) written to by the shell itself.
rmmod ttyprintk
insmod ./ttyprintk.ko
echo hi >/dev/ttyprintk
