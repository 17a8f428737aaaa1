"""Writes the inputs of odd_extents.tl and checks its outputs:
odd_extents.py write|check R C K. Values are small integers, so every sum
is exact in any order."""
import sys

import numpy as np

mode, R, C, K = sys.argv[1], *map(int, sys.argv[2:5])
rng = np.random.default_rng(R * 1000 + C)
if mode == "write":
    np.save("x.npy", rng.integers(-9, 10, (R, C)).astype(np.float32))
    np.save("w.npy", rng.integers(-3, 4, K).astype(np.float32))
    np.save("y.npy", np.zeros((R, C), np.float32))
    np.save("out.npy", np.zeros(R + 3 * C + 1, np.float32))
    np.save("acc.npy", np.arange(C + 1, dtype=np.float32))
    sys.exit(0)

x, w = np.load("x.npy"), np.load("w.npy")
y, out, acc = np.load("y_ptr.npy"), np.load("out_ptr.npy"), np.load("acc_ptr.npy")
padded = np.concatenate([x[0], np.zeros(K, np.float32)])
conv = np.array([padded[i:i + K] @ w for i in range(C)], np.float32)
expected = np.concatenate([x.sum(1), x.max(0), [x.min()], conv, np.arange(C)])
assert np.array_equal(y, x * 2 + 1), "y"
assert np.array_equal(out, expected.astype(np.float32)), (out, expected)
start = np.arange(C + 1, dtype=np.float32)
assert np.array_equal(acc[:C], start[:C] + x[0]), ("acc", acc[:C])
assert acc[C] == start[C] + x.sum(), ("total", acc[C])
print("odd extents ok")
