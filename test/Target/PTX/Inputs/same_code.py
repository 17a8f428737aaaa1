"""Exits 0 when two cubins hold the same code: every .text, .nv.info,
.nv.shared and .nv.constant section alike, byte for byte (their line tables
may differ). Reads the ELF section headers itself: no binutils needed."""
import struct
import sys


def sections(path):
    data = open(path, "rb").read()
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    entsize, count, names = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize)
               for i in range(count)]
    table = headers[names][4]

    def name(offset):
        return data[table + offset:data.index(b"\0", table + offset)].decode()

    return {name(h[0]): data[h[4]:h[4] + h[5]] for h in headers}


code = (".text", ".nv.info", ".nv.shared", ".nv.constant")
a, b = sections(sys.argv[1]), sections(sys.argv[2])
differ = [k for k in sorted(set(a) | set(b))
          if k.startswith(code) and a.get(k) != b.get(k)]
texts = [k for k in a if k.startswith(".text")]
print("code sections:", len(texts), "differing:", differ or "none")
sys.exit(1 if differ or not texts else 0)
