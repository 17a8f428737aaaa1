"""Inputs and numpy checks of test/Interpreter/arg_reductions.tl: ties and
NaNs are planted so that tie-breaking and NaN handling show."""
import sys

import numpy as np

M, N = 8, 32
if sys.argv[1] == "inputs":
    rng = np.random.default_rng(4)
    x = rng.integers(-5, 6, (M, N)).astype(np.int32)  # many ties
    f = rng.standard_normal((M, N)).astype(np.float32)
    f[1, 7] = f[1, 20] = np.nan
    f[3, :] = 2.0
    f[5, 30] = np.nan
    np.save("x.npy", x)
    np.save("f.npy", f)
    np.save("o.npy", np.full(6 * M + 2 * N + 2 + M, -99, np.int32))
    sys.exit(0)
x, f = np.load("x.npy"), np.load("f.npy")
o = np.load("out_ptr.npy")
distinct = x * N + np.arange(N)[None, :]
expected = np.concatenate([
    np.argmax(x, 1), np.argmin(x, 0), np.argmax(distinct, 1),
    np.nanargmax(f, 1), np.nanargmin(f, 0),
    np.argmax(x, 1), x.max(1),
    np.bitwise_xor.reduce(x, 1), [np.bitwise_xor.reduce(x.ravel())],
    [np.argmin(x)], np.argmax(x, 1)])
if not np.array_equal(o, expected):
    sys.exit(f"differs at {np.nonzero(o != expected)[0]}:\n{o}\n{expected}")
print("arg reductions ok")
