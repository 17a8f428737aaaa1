"""Inputs and a NumPy reference for dot_scaled.tl: microscaled operands
(e2m1 packed two a byte along K, e4m3 as uint8 bits) and e8m0 scales.

    mx.py make        writes a.npy, b.npy, sa.npy, sb.npy, o.npy
    mx.py check OUT   compares OUT with the reference
"""
import sys

import numpy as np

M, N, K = 32, 16, 64


def e2m1(nibbles):
    nibbles = nibbles.astype(np.int64)
    sign = np.where(nibbles & 8, -1.0, 1.0)
    e, m = (nibbles >> 1) & 3, nibbles & 1
    magnitude = np.where(e == 0, m * 0.5, (1 + m / 2) * 2.0 ** (e - 1))
    return sign * magnitude


def e4m3(bits):
    bits = bits.astype(np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    e, m = (bits >> 3) & 15, bits & 7
    return sign * np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))


def reference():
    a, b = np.load("a.npy"), np.load("b.npy")
    sa, sb = np.load("sa.npy"), np.load("sb.npy")
    lhs = np.empty((M, K))
    lhs[:, 0::2], lhs[:, 1::2] = e2m1(a & 15), e2m1(a >> 4)
    rhs = e4m3(b)
    lhs *= np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
    rhs *= np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1).T
    return lhs @ rhs


if sys.argv[1] == "make":
    r = np.random.default_rng(0)
    np.save("a.npy", r.integers(0, 256, (M, K // 2)).astype(np.uint8))
    bits = r.integers(0, 256, (K, N)).astype(np.uint8)
    bits[(bits & 0x7F) == 0x7F] = 0x38  # no NaNs
    np.save("b.npy", bits)
    np.save("sa.npy", r.integers(120, 134, (M, K // 32)).astype(np.uint8))
    np.save("sb.npy", r.integers(120, 134, (N, K // 32)).astype(np.uint8))
    np.save("o.npy", np.zeros((M, N), np.float32))
else:
    got, want = np.load(sys.argv[2]), reference()
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max()), \
        np.abs(got - want).max()
    print("dot_scaled ok")
