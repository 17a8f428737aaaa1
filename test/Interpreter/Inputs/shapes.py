"""The numpy results of test/Interpreter/shapes.tl, in the order it stores
them; prints "shapes ok" when all match."""
import sys

import numpy as np

x = np.load(sys.argv[1])
out = np.load(sys.argv[2])
R, C = x.shape
cube = x.reshape(2, R // 2, C)
rows, cols = np.arange(R), np.arange(C)
expected = [
    x.T,
    x.T + 1,
    cube.transpose(2, 0, 1),
    cube.transpose(1, 2, 0) * 3,
    np.array([x.sum()]),
    x[:, 0::2] - x[:, 1::2],
    np.stack((x[:, 1::2], x[:, 0::2]), -1).reshape(R, C),
    np.stack((x, -x), -1),
    cols[None, :, None] * 10 + rows[:, None, None] + np.zeros((R, C, 2), int),
    rows[:, None] * 100 + cols[None, :],
    np.array([x.min(), x.max()]),
    np.array([x.max()]),
]
at = 0
for i, e in enumerate(expected):
    e = np.ravel(e)
    got = out[at:at + e.size]
    if not np.array_equal(got, e):
        sys.exit(f"result {i} differs:\n{got}\nexpected\n{e}")
    at += e.size
print("shapes ok")
