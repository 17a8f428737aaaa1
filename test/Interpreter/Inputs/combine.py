"""Checks test/Interpreter/combine.tl's outputs against numpy."""
import sys

import numpy as np


def wrap(v):
    return np.asarray(v, np.int64).astype(np.int32)


def affine_scan(a, b, reverse):
    """Composes x -> a x + b along the last axis, in scan order."""
    a, b = a.astype(np.int64), b.astype(np.int64)
    if reverse:
        a, b = a[..., ::-1], b[..., ::-1]
    out = np.empty_like(b)
    acc_a, acc_b = a[..., 0].copy(), b[..., 0].copy()
    out[..., 0] = acc_b
    for i in range(1, b.shape[-1]):
        acc_a, acc_b = wrap(acc_a * a[..., i]), wrap(acc_b * a[..., i] + b[..., i])
        out[..., i] = acc_b
    return wrap(out[..., ::-1] if reverse else out)


def python_mod(x, m):
    # Triton's % on ints takes the sign of the dividend, as C does.
    return np.fmod(x, m)


def check(name, got, want):
    if not np.array_equal(got, want):
        bad = np.argwhere(got != want)[:5]
        print(f"{name}: mismatch at {bad.tolist()}: got {got[tuple(bad.T)]}, "
              f"want {want[tuple(bad.T)]}")
        sys.exit(1)


def main():
    x = np.load(sys.argv[1]).astype(np.int64)
    o = np.load(sys.argv[2])
    R, C = x.shape
    parts = []
    best = x.max(1)
    parts += [("best", best), ("where", x.argmax(1)), ("column sums", x.sum(0)),
              ("max", np.array([x.max()])),
              ("minus row sums", x - x.sum(1, keepdims=True)),
              ("row scan", np.cumsum(x, 1)),
              ("reverse column scan", np.cumsum(x[::-1], 0)[::-1])]
    a = python_mod(x, 3) - 1
    parts += [("affine rows", affine_scan(a, x, False)),
              ("affine rows reversed", affine_scan(a, x, True)),
              ("affine columns", affine_scan(a.T, x.T, False).T),
              ("int8 cumsum", np.cumsum(wrap(x * 16).astype(np.int8).astype(np.int64), 1)),
              ("reverse cumprod", np.cumprod(a[::-1], 0)[::-1]),
              ("float cumsum", np.cumsum(x, 0))]
    at = 0
    for name, want in parts:
        want = wrap(want).ravel()
        check(name, o[at:at + want.size], want)
        at += want.size
    print("combine ok")

    y = np.load(sys.argv[3]).astype(np.int64)
    p = np.load(sys.argv[4])
    n = y.size
    b = python_mod(y, 3) - 1
    check("long cumsum", p[:n], wrap(np.cumsum(y)))
    check("long reverse cumsum", p[n:2 * n], wrap(np.cumsum(y[::-1])[::-1]))
    check("long affine", p[2 * n:3 * n], affine_scan(b, y, False))
    check("long affine reversed", p[3 * n:4 * n], affine_scan(b, y, True))
    check("long argmax", p[4 * n:4 * n + 2], wrap([y.max(), y.argmax()]))
    print("long scans ok")


main()
