"""Inputs and checks of test/Interpreter/sort.tl.

`make` writes the inputs; `check` compares the outputs with a model of
Triton's bitonic network (written over element indices, not Triton's
hypercube reshapes) bit for bit, and with numpy where the order is total.
"""
import sys

import numpy as np


def merge(x, stage, flip):
    """Stage `stage` of the network on the last axis: each element takes its
    partner's value where (x > partner) != (flip ^ is_right)."""
    cols = np.arange(x.shape[-1])
    for j in range(stage - 1, -1, -1):
        partner = x[..., cols ^ (1 << j)]
        is_right = (cols >> j) & 1
        with np.errstate(invalid="ignore"):
            swap = (x > partner) != ((flip ^ is_right) != 0)
        x = np.where(swap, partner, x)
    return x


def flip_of(n, stage, stages, descending):
    return ((np.arange(n) >> stage) & 1) if stage < stages else int(descending)


def sort(x, descending=False):
    stages = int(np.log2(x.shape[-1]))
    for s in range(1, stages + 1):
        x = merge(x, s, flip_of(x.shape[-1], s, stages, descending))
    return x


def topk(x, k):
    stages, log_k = int(np.log2(x.shape[-1])), int(np.log2(k))
    for s in range(1, log_k + 1):
        x = merge(x, s, flip_of(x.shape[-1], s, stages, True))
    if x.dtype.itemsize < 4:
        x = x.astype(np.float32 if x.dtype.kind == "f" else np.int32)
    for s in range(log_k + 1, stages + 1):
        runs = x.reshape(x.shape[:-1] + (-1, 2, k))
        x = np.fmax(runs[..., 0, :], runs[..., 1, :]).reshape(x.shape[:-1] + (-1,))
        x = merge(x, log_k, flip_of(x.shape[-1], log_k, stages, True)
                  if s < stages else 1)
    return x


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def make():
    rng = np.random.default_rng(21)
    x = (rng.integers(-40, 40, (4, 32)) / 4).astype(np.float32)
    x[1, 3] = x[1, 17] = np.nan
    x[2, 5], x[2, 6], x[2, 20] = -0.0, 0.0, -0.0
    np.save("x.npy", x)
    np.save("out.npy", np.zeros(3 * 4 * 32 + 4 * 8, np.float32))
    np.save("y.npy", rng.integers(-30000, 30000, 1024).astype(np.int16))
    np.save("iout.npy", np.zeros(3 * 1024 + 16, np.int32))
    np.save("v.npy", rng.integers(-5, 70, 1300).astype(np.int32))
    np.save("h.npy", np.zeros(64, np.int32))


def check():
    ok = True
    x, out = np.load("x.npy"), np.load("out_ptr.npy")
    R, N, K = 4, 32, 8
    asc, desc, flipped = (out[i * R * N:(i + 1) * R * N].reshape(R, N) for i in range(3))
    top = out[3 * R * N:].reshape(R, K)
    ordered = ~np.isnan(x).any(1)  # rows whose order is total, up to -0.0
    for name, got, want in [("sort", asc, sort(x)), ("descending", desc, sort(x, True)),
                            ("flip", flipped, x[::-1]), ("topk", top, topk(x, K))]:
        if not same_bits(got, want):
            ok = False
            print(f"{name}: got\n{got}\nwant\n{want}")
    ok &= np.array_equal(asc[ordered], np.sort(x[ordered], axis=1))
    ok &= np.array_equal(desc[ordered], np.sort(x[ordered], axis=1)[:, ::-1])
    ok &= np.array_equal(top[ordered], np.sort(x[ordered], axis=1)[:, ::-1][:, :K])
    print("float sorts ok" if ok else "float sorts WRONG")

    y, iout = np.load("y.npy"), np.load("iout_ptr.npy")
    n = y.size
    want = [np.sort(y), np.sort(y)[::-1], y[::-1], np.sort(y)[::-1][:16]]
    got = [iout[:n], iout[n:2 * n], iout[2 * n:3 * n], iout[3 * n:]]
    int_ok = all(np.array_equal(g, w.astype(np.int32)) for g, w in zip(got, want))
    int_ok &= np.array_equal(iout[3 * n:], topk(y, 16))
    print("int sorts ok" if int_ok else f"int sorts WRONG: {got}")

    v, h = np.load("v.npy"), np.load("h_ptr.npy")
    bins = h.size
    want = np.bincount(v[(v >= 0) & (v < bins)], minlength=bins)
    print("histogram ok" if np.array_equal(h, want) else f"histogram WRONG: {h} vs {want}")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]]()
