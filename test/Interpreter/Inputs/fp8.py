"""Inputs and references of test/Interpreter/fp8.tl: a model of PTX's
cvt.rn.satfinite into fp8 (nearest even; past the largest finite value,
that value; NaN to 0x7f), written from the formats' definitions."""
import sys

import numpy as np

# (exponent bits, mantissa bits, bias, largest finite, has infinities)
FORMATS = {"e5m2": (5, 2, 15, 57344.0, True), "e4m3": (4, 3, 7, 448.0, False)}


def decode(bits, fmt):
    e_bits, m_bits, bias, _, has_inf = FORMATS[fmt]
    bits = np.asarray(bits, np.int64)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    e = (bits >> m_bits) & ((1 << e_bits) - 1)
    m = bits & ((1 << m_bits) - 1)
    value = np.where(e == 0, m * 2.0 ** (1 - bias - m_bits),
                     (m + 2 ** m_bits) * 2.0 ** (e - bias - m_bits))
    top = (1 << e_bits) - 1
    if has_inf:
        value = np.where((e == top) & (m == 0), np.inf, value)
        value = np.where((e == top) & (m != 0), np.nan, value)
    else:
        value = np.where((e == top) & (m == (1 << m_bits) - 1), np.nan, value)
    return sign * value


def encode(x, fmt):
    """Every finite fp8 value, the nearest (ties to the even code) taken."""
    codes = np.arange(256)
    values = decode(codes, fmt)
    finite = np.isfinite(values)
    codes, values = codes[finite], values[finite]
    largest = FORMATS[fmt][3]
    out = np.empty(x.shape, np.uint8)
    for i, v in enumerate(np.asarray(x, np.float64).ravel()):
        if np.isnan(v):
            out.flat[i] = 0x7F
            continue
        if v == 0:
            out.flat[i] = 0x80 if np.signbit(v) else 0
            continue
        v = min(max(v, -largest), largest)
        dist = np.abs(values - v)
        best = codes[np.flatnonzero(dist == dist.min())]
        # Of two equally near codes, the even one.
        even = [c for c in best if c % 2 == 0]
        out.flat[i] = (even or list(best))[0]
    return out


N, M, NN, K = 256, 32, 32, 64


def make():
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(N) * 4).astype(np.float32)
    x[:12] = [0.0, -0.0, 448.0, 449.0, 464.0, 1e6, -1e6, 57344.0, 61440.0,
              2.0 ** -9, 2.0 ** -17, 0.3]
    np.save("x.npy", x)
    for name in ("e5", "e4", "h4"):
        np.save(name + ".npy", np.zeros(N, np.uint8))
    np.save("back.npy", np.zeros(2 * N, np.float32))
    small = lambda shape: rng.integers(-4, 5, shape).astype(np.float64)
    np.save("a.npy", encode(small((M, K)), "e4m3"))
    np.save("b.npy", encode(small((K, NN)), "e4m3"))
    np.save("c.npy", encode(small((M, K)), "e5m2"))
    np.save("d.npy", encode(small((K, NN)), "e5m2"))
    np.save("acc.npy", np.zeros(2 * M * NN, np.float32))


def check():
    x = np.load("x.npy")
    e5, e4, h4 = (np.load(n + "_ptr.npy") for n in ("e5", "e4", "h4"))
    want5, want4 = encode(x, "e5m2"), encode(x, "e4m3")
    with np.errstate(over="ignore"):
        halves = x.astype(np.float16)  # 1e6 becomes inf, which saturates
    want_h4 = np.where(np.arange(N) % 2 == 0, encode(halves, "e4m3"), want4)
    back = np.load("back_ptr.npy")
    want_back = np.concatenate([decode(want5, "e5m2"), decode(want4, "e4m3")]).astype(np.float32)
    ok = True
    for name, got, want in [("e5m2", e5, want5), ("e4m3", e4, want4),
                            ("from fp16", h4, want_h4)]:
        if not np.array_equal(got, want):
            bad = np.flatnonzero(got != want)[:8]
            print(f"{name}: at {bad} x {x[bad]} got {got[bad]} want {want[bad]}")
            ok = False
    if not np.array_equal(back, want_back, equal_nan=True):
        print("back to fp32 differs")
        ok = False
    print("fp8 conversions ok" if ok else "fp8 conversions WRONG")

    acc = np.load("acc_ptr.npy").reshape(2, M, NN)
    a, b = decode(np.load("a.npy"), "e4m3"), decode(np.load("b.npy"), "e4m3")
    c, d = decode(np.load("c.npy"), "e5m2"), decode(np.load("d.npy"), "e5m2")
    ok = np.array_equal(acc[0], a @ b) and np.array_equal(acc[1], c @ d)
    print("fp8 dots ok" if ok else f"fp8 dots WRONG: {acc[0][:2, :4]} vs {(a @ b)[:2, :4]}")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]]()
