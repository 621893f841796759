#!/bin/sh
# sign_module.sh STAPX KERNEL_DIR: --sign-module=KEYDIR makes a key once
# (openssl), signs the module with the guest kernel's scripts/sign-file,
# and the signature appended to the module (the kernel's format: PKCS#7,
# struct module_signature, "~Module signature appended~") verifies against
# the key's certificate; a module changed after signing does not. Signed
# modules are cached by key. Skipped (77) without the kernel's kbuild tree
# or openssl.
set -u
stapx=$1
kdir=$2
command -v openssl >/dev/null 2>&1 || { echo "skipped: no openssl"; exit 77; }
rel=$(cat "$kdir/release" 2>/dev/null) || { echo "skipped: no kernel in $kdir"; exit 77; }
tree=
for d in "/lib/modules/$rel/build" "$kdir/$rel/build"; do
	[ -f "$d/scripts/sign-file" ] && { tree=$d; break; }
done
[ -n "$tree" ] || { echo "skipped: no kbuild tree with scripts/sign-file for $rel"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
script='probe begin { println("signed"); exit() }'

ko=$("$stapx" -r "$tree" -p4 --sign-module="$work/keys" -e "$script" 2>"$work/err") || fail "stapx: $(cat "$work/err")"
grep -q "made a module signing key in $work/keys.*mokutil --import $work/keys/signing_key.x509" "$work/err" ||
	fail "no key message: $(cat "$work/err")"
[ "$(stat -c %a "$work/keys/signing_key.pem")" = 600 ] || fail "the private key is not the user's alone"

# verify MODULE: the signature over what precedes it, against the cert
verify() {
	python3 - "$1" "$work" <<'PY' || return 1
import struct, sys
data = open(sys.argv[1], "rb").read()
magic = b"~Module signature appended~\n"
if not data.endswith(magic):
    sys.exit("no signature appended")
info = data[-len(magic) - 12:-len(magic)]
sig_len = struct.unpack(">I", info[8:12])[0]
end = len(data) - len(magic) - 12
if info[2] != 2:  # id_type: PKEY_ID_PKCS7
    sys.exit("not a PKCS#7 signature")
open(sys.argv[2] + "/sig.p7", "wb").write(data[end - sig_len:end])
open(sys.argv[2] + "/content", "wb").write(data[:end - sig_len])
PY
	openssl x509 -inform DER -in "$work/keys/signing_key.x509" -out "$work/cert.pem" &&
		openssl cms -verify -binary -inform DER -in "$work/sig.p7" -content "$work/content" \
			-certfile "$work/cert.pem" -CAfile "$work/cert.pem" -purpose any -out /dev/null 2>/dev/null
}
verify "$ko" || fail "the signature of $ko does not verify against the certificate"
# One byte changed in the module's code: no longer.
cp "$ko" "$work/changed.ko"
printf 'X' | dd of="$work/changed.ko" bs=1 seek=100 conv=notrunc 2>/dev/null
verify "$work/changed.ko" && fail "a changed module still verifies"

# Again: the same key, the cached signed module, no new key.
again=$("$stapx" -r "$tree" -p4 --sign-module="$work/keys" -e "$script" 2>"$work/err2")
[ "$again" = "$ko" ] || fail "second build: $again, not the cached $ko"
[ -s "$work/err2" ] && fail "second build said: $(cat "$work/err2")"
# Another key: another signed module.
other=$("$stapx" -r "$tree" -p4 --sign-module="$work/keys2" -e "$script" 2>/dev/null)
[ -n "$other" ] && [ "$other" != "$ko" ] || fail "another key gave $other"
exit $status
