"""Inputs and references of test/Interpreter/int_to_float.tl: integers
rounded once to the nearest (ties to even) float of p significant bits,
computed on Python's exact integers."""
import sys

import numpy as np

I32 = [1598029873, -1598029873, 2**31 - 1, -2**31, 2**24 + 1, 2**24 + 3,
       33554431, 0]
# Past 2^53, through a double: 2^60 + 2^36 + 1 lands on an f32 midpoint and
# 2^60 + 2^52 + 1 (through f32) on a bf16 one.
I64 = [2**60 + 2**36 + 1, -(2**60 + 2**36 + 1), 2**60 + 2**52 + 1,
       -(2**60 + 2**52 + 1), 2**63 - 1, -2**63, 2**53 + 1, 12345]


def round_once(v, p):
    """v to p significant bits, to nearest even, as a Python float."""
    m = abs(v)
    shift = max(0, m.bit_length() - p)
    q, r = divmod(m, 1 << shift)
    half = 1 << shift >> 1
    if shift and (r > half or (r == half and q & 1)):
        q += 1
    return float(q << shift) * (-1 if v < 0 else 1)


def make():
    np.save("i.npy", np.array(I32, np.int32))
    np.save("l.npy", np.array(I64, np.int64))
    for name in "abcd":
        np.save(name + ".npy", np.zeros(8, np.float32))


def check():
    expected = {
        "a_ptr": [round_once(v, 8) for v in I32],
        "b_ptr": [round_once(v, 24) for v in I32],
        "c_ptr": [round_once(v, 8) for v in I64],
        "d_ptr": [round_once(v, 24) for v in I64],
    }
    for name, want in expected.items():
        got = np.load(name + ".npy").astype(np.float64).tolist()
        assert got == want, (name, got, want)
    print("ok")


{"make": make, "check": check}[sys.argv[1]]()
