"""Inputs and references of test/Interpreter/downcast_rounding.tl: floats
rounded toward zero to p significant bits, computed exactly on Python's
fractions (past the largest finite value: that value)."""
import math
import sys
from fractions import Fraction

import numpy as np

# Between fp16 values, past fp16's range, in its subnormals and below,
# thirds, fp32's near-largest, infinities.
X = [1 + 2**-11 + 2**-13, -(1 + 3 * 2**-12), 65519, 70000, -70000, 1e-8,
     3e-5, -3e-5, 0.1, -0.1, 2**-24, 1 / 3, 3.4e38, -math.inf, math.inf, 0.0]
# From fp64 also past fp32's precision and range.
D = X[:12] + [1 + 2**-30, 1e300, -1e300, -1 / 3]

# (significant bits, smallest normal exponent, largest finite value)
F16 = (11, -14, 65504.0)
BF16 = (8, -126, float((2 - Fraction(1, 2**7)) * 2**127))
F32 = (24, -126, float((2 - Fraction(1, 2**23)) * 2**127))


def toward_zero(v, fmt):
    p, emin, largest = fmt
    if v == 0 or math.isinf(v):
        return v
    m = abs(Fraction(v))
    if m >= largest:
        return math.copysign(largest, v)
    e = max(math.frexp(abs(v))[1] - 1, emin)
    ulp = Fraction(2) ** (e - (p - 1))
    return math.copysign(float(math.floor(m / ulp) * ulp), v)


def bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def make():
    np.save("x.npy", np.array(X, np.float32))
    np.save("d.npy", np.array(D, np.float64))
    for name, dtype in [("h", np.float16), ("n", np.float16),
                        ("b", np.uint16), ("f", np.float32),
                        ("dh", np.float16), ("db", np.uint16)]:
        np.save(name + ".npy", np.zeros(16, dtype))


def check():
    x = np.load("x.npy").astype(np.float64).tolist()
    d = np.load("d.npy").tolist()
    expected = {
        "h_ptr": [toward_zero(v, F16) for v in x],
        "b_ptr": [toward_zero(v, BF16) for v in x],
        "f_ptr": [toward_zero(v, F32) for v in d],
        "dh_ptr": [toward_zero(v, F16) for v in d],
        "db_ptr": [toward_zero(v, BF16) for v in d],
    }
    # rtne: NumPy's conversion, to nearest even (70000 to inf).
    with np.errstate(over="ignore"):
        expected["n_ptr"] = np.array(x, np.float32).astype(np.float16).astype(
            np.float64).tolist()
    for name, want in expected.items():
        got = np.load(name + ".npy")
        if got.dtype == np.uint16:
            got = bf16(got)
        got = got.astype(np.float64).tolist()
        assert got == want, (name, got, want)
    print("rtz ok")


{"make": make, "check": check}[sys.argv[1]]()
