"""Inputs and numpy checks of test/Interpreter/block_pointers.tl:
`inputs` writes a.npy, b.npy and the output buffers; `check` compares."""
import sys

import numpy as np

M, N, K = 40, 50, 37
if sys.argv[1] == "inputs":
    rng = np.random.default_rng(7)
    np.save("a.npy", rng.integers(-4, 5, (M, K)).astype(np.float32))
    np.save("b.npy", rng.integers(-4, 5, (K, N)).astype(np.float32))
    np.save("c.npy", np.full((M, N), -1, np.float32))
    np.save("d.npy", np.full((M, K), -1, np.float32))
    np.save("e.npy", np.full((M, K), -1, np.float32))
    np.save("p.npy", np.zeros((64, 64), np.float32))
    sys.exit(0)
a, b = np.load("a.npy"), np.load("b.npy")
c = np.load("c_ptr.npy").reshape(M, N)
assert np.array_equal(c, a @ b), "block_matmul differs"
d = np.load("y_ptr.npy").reshape(M, K)
assert np.array_equal(d, a * 2 + 1), "descriptor_scale differs"
e = np.load("y_desc.npy").reshape(M, K)
assert np.array_equal(e, a * 2 + 1), "host_descriptor_scale differs"
p = np.load("out_ptr.npy").reshape(64, 64)
expected = np.full((64, 64), np.nan, np.float32)
expected[:M, :K] = a
assert np.array_equal(p, expected, equal_nan=True), "nan_padding differs"
print("block pointers ok")
