"""Checks the outputs of Interpreter/libdevice.tl against Python's math and
NumPy: tl.sin/cos/erf, libdevice functions and tl.randn/rand4x/randn4x
(Box-Muller on the Philox words of philox.py)."""
import math
import sys

import numpy as np

import philox

x = np.load("x.npy").astype(np.float64)
o = np.load("out_ptr.npy").reshape(-1, 64).astype(np.float64)
a = np.abs(x) + 0.5
vec = np.vectorize


def close(row, ref, rtol=2e-6, atol=2e-6):
    np.testing.assert_allclose(o[row], ref, rtol=rtol, atol=atol,
                               err_msg="row %d" % row)


close(0, np.sin(x))
close(1, np.cos(x))
close(2, vec(math.erf)(x))
close(3, np.arcsin(x / 8))
close(4, a ** 1.5)
close(5, np.arctan2(x, a))
close(6, x * x + 0.25)
# erfinv: erf of the result gives the input back.
np.testing.assert_allclose(vec(math.erf)(o[7]), x / 8, rtol=1e-5, atol=1e-6)
close(8, vec(math.lgamma)(a), rtol=1e-5, atol=1e-5)
close(9, 0.5 * vec(math.erfc)(-x / math.sqrt(2)))
# A half input computes in, and returns, float32.
close(10, np.sinh((x.astype(np.float16) / np.float16(4)).astype(np.float64)))

# Random normals: Triton's Box-Muller in float32 on the uniforms of words.
seed, offs = 42, np.arange(64)
words = philox.philox(seed, offs)
u = [philox.uniform(w).astype(np.float32) for w in words]


def normals(u1, u2):
    u1 = np.maximum(np.float32(1e-7), u1)
    th = np.float32(6.283185307179586) * u2
    r = np.sqrt(np.float32(-2.0) * np.log(u1))
    return r * np.cos(th), r * np.sin(th)


n1, n2 = normals(u[0], u[1])
n3, n4 = normals(u[2], u[3])
for row, ref in zip(range(11, 20), [n1, n1, n2, n3, n4] + u):
    close(row, ref, rtol=1e-5, atol=1e-5)
print("libdevice ok")
