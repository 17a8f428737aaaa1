"""Inputs and numpy references of test/Interpreter/unsigned.tl."""
import sys

import numpy as np

N, S = 64, 3000000000


def make():
    rng = np.random.default_rng(31)
    a = rng.integers(0, 256, N).astype(np.uint8)
    b = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b[:4] = [0, 1, 2**31, 2**32 - 1]
    w = rng.integers(-2**31, 2**31, N).astype(np.int32)
    w[:3] = [-1, -129, 200]
    for name, v in [("a", a), ("b", b), ("w", w)]:
        np.save(name + ".npy", v)
    np.save("out.npy", np.zeros(16 * N + 7, np.uint32))
    np.save("m.npy", np.array([0, 2**32 - 1], np.uint32))


def expected(a, b, w):
    u32 = lambda v: np.asarray(v).astype(np.int64).astype(np.uint32)
    a64, b64, w64 = a.astype(np.int64), b.astype(np.int64), w.astype(np.int64)
    rows = [b // 7, b % 1000, b >> 28, (b64 > 2**31),
            (b.astype(np.float32) * np.float32(0.5)).astype(np.uint32),
            u32(a64 + w64), u32(b64 + w64), np.maximum(b, u32(w)),
            np.where(a > 128, a64, b64), u32(w64 & 0xFF), u32(~a & 0xFF),
            u32(a.view(np.int8)), u32(np.cumsum(a64)), np.sort(b),
            u32((b64 < S) + (b64 // S) * 2),
            a.astype(np.float32).view(np.uint32)]
    tail = [b.max(), b.min(), np.argmax(b), a64.sum(), a.max(),
            np.bitwise_xor.reduce(b), np.argmin(b)]
    return np.concatenate([u32(r) for r in rows] + [u32(tail)])


def check():
    a, b, w = (np.load(n + ".npy") for n in "abw")
    got, want = np.load("out_ptr.npy"), expected(a, b, w)
    if np.array_equal(got, want):
        print("unsigned ops ok")
    else:
        bad = np.nonzero(got != want)[0]
        print(f"unsigned ops WRONG at {bad[:10]} (row {bad[0] // N}): "
              f"got {got[bad[:10]]}, want {want[bad[:10]]}")
    m = np.load("m_ptr.npy")
    ok = np.array_equal(m, [b.max(), b.min()])
    print("unsigned atomics ok" if ok else f"unsigned atomics WRONG: {m}")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]]()
