"""Inputs and the check of libdevice_rounded.tl: each rounded operation
against the exact rational result rounded in its direction."""
import sys
from fractions import Fraction

import numpy as np

OPS = ["add", "sub", "mul", "div", "rcp", "sqrt"]
MODES = ["rn", "rz", "rd", "ru"]


def make():
    r = np.random.default_rng(5)
    x = r.standard_normal(64) * 10.0 ** r.integers(-6, 7, 64)
    y = r.standard_normal(64) * 10.0 ** r.integers(-6, 7, 64)
    # Exact cases, cancellations, huge exponent gaps and fp32 overflows.
    x[:6] = [1.0, 3.0, 1e30, -2.5, 1.0, 0.1]
    y[:6] = [3.0, 1.0, 1e-30, 2.5, -1.0, 0.2]
    np.save("x.npy", x.astype(np.float32))
    np.save("y.npy", y.astype(np.float32))
    np.save("xd.npy", x)
    np.save("yd.npy", y * (1 + 2.0 ** -40))
    np.save("o32.npy", np.zeros(24 * 64, np.float32))
    np.save("o64.npy", np.zeros(24 * 64, np.float64))
    inf, nan = np.inf, np.nan
    s = np.array([0.0, -0.0, inf, -inf, nan, -nan, 1.0, -1.0, 1e-40, -1e-40,
                  3.4e38, -3.4e38, 2.0, -0.5, 1e30, -1e30])
    np.save("s.npy", s.astype(np.float32))
    np.save("sd.npy", s)
    i = np.array([0, 1, 2, 3, 8, -1, -2**31, 2**31 - 1, 96, 1 << 20, 12, 7,
                  -8, 1 << 30, 5, 64], np.int64)
    np.save("i.npy", i.astype(np.int32))
    il = i.copy()
    il[:4] = [1 << 40, -2**63, 1 << 62, 3 << 33]
    np.save("il.npy", il)
    np.save("c.npy", np.zeros(11 * 16, np.int32))


def exact(op, x, y):
    x, y = Fraction(float(x)), Fraction(float(y))
    return {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
            "div": lambda: x / y, "rcp": lambda: 1 / y,
            "sqrt": lambda: None}[op]()


def rounded(value, mode, dtype, sqrt_of=None):
    """`value` (a Fraction) rounded to `dtype` in `mode`; for sqrt, the
    root of `sqrt_of`, compared through squares."""
    nearest = dtype(float(value) if sqrt_of is None else np.sqrt(float(sqrt_of)))
    if np.isinf(nearest):  # an overflow: past the exact, finite value
        side = 1 if nearest > 0 else -1
    elif sqrt_of is None:
        side = (Fraction(float(nearest)) > value) - (Fraction(float(nearest)) < value)
    else:
        sq = Fraction(float(nearest)) ** 2
        side = (sq > sqrt_of) - (sq < sqrt_of)
    up, down = np.nextafter(nearest, dtype(np.inf)), np.nextafter(nearest, dtype(-np.inf))
    if mode == "rn":
        return nearest
    if mode == "rd":
        return down if side > 0 else nearest
    if mode == "ru":
        return up if side < 0 else nearest
    if nearest > 0:
        return down if side > 0 else nearest
    return up if side < 0 else nearest


def check(out32, out64, classes):
    x32, y32 = np.load("x.npy"), np.load("y.npy")
    xd, yd = np.load("xd.npy"), np.load("yd.npy")
    for dtype, xs, ys, path in ((np.float32, x32, y32, out32), (np.float64, xd, yd, out64)):
        got = np.load(path).reshape(6, 4, 64)
        for o, op in enumerate(OPS):
            for m, mode in enumerate(MODES):
                for k in range(64):
                    if op == "sqrt":
                        a = Fraction(abs(float(xs[k])))
                        want = rounded(None, mode, dtype, sqrt_of=a)
                    else:
                        want = rounded(exact(op, xs[k], ys[k]), mode, dtype)
                    if got[o, m, k] != want:
                        sys.exit(f"{dtype.__name__} {op}_{mode}({xs[k]!r}, {ys[k]!r}): "
                                 f"{got[o, m, k]!r}, want {want!r}")
    print("rounded arithmetic ok")
    s, sd = np.load("s.npy"), np.load("sd.npy")
    i, il = np.load("i.npy"), np.load("il.npy")
    c = np.load(classes).reshape(11, 16)
    assert c.dtype == np.int32
    ffs = lambda v, w: [0 if e == 0 else ((int(e) & ((1 << w) - 1)) & -(int(e) & ((1 << w) - 1))).bit_length() for e in v]
    want = [np.isinf(s), np.isnan(s), np.isfinite(s), np.signbit(s),
            np.isinf(sd), np.isnan(sd), np.isfinite(sd), np.signbit(sd),
            # fp16's NaN is the canonical one, positive (the GPU's cvt).
            np.signbit(s.astype(np.float16)) & ~np.isnan(s), ffs(i, 32), ffs(il, 64)]
    for row, (g, w) in enumerate(zip(c, want)):
        assert list(g) == [int(e) for e in w], (row, list(g), list(w))
    print("classes ok")


if __name__ == "__main__":
    make() if sys.argv[1] == "make" else check(*sys.argv[2:])
