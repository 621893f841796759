home=$PWD/pyhome
mkdir -p $home/lib/python3.11/encodings
cat >$home/lib/python3.11/encodings/__init__.py <<'PY'
import codecs
class _Encoder(codecs.IncrementalEncoder):
    def encode(self, s, final=False):
        return codecs.utf_8_encode(s, self.errors)[0]
class _Decoder(codecs.BufferedIncrementalDecoder):
    _buffer_decode = codecs.utf_8_decode
def _search(name):
    if name.replace('-', '_') in ('utf_8', 'utf8'):
        return codecs.CodecInfo(codecs.utf_8_encode, codecs.utf_8_decode, name='utf-8',
                                incrementalencoder=_Encoder, incrementaldecoder=_Decoder)
codecs.register(_search)
PY
env -i PYTHONHOME=$home PYTHONUTF8=1 /usr/bin/python3.11 -S -c 'import sys
sys.settrace(lambda *a: None)
def work(n):
    return n + 1
print(work(41))' >/dev/null
