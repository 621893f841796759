exec ./tapset_vm
