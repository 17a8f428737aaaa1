"""Cases of layer_norm.tl: the forward on fp16 rows walked in chunks and on
fp32 rows in one block, the backward's dx with its locked partial sums of
dw and db (partial rows poisoned with NaN beforehand: the first writer of
each must store, not add), and the final reduction of the partial rows."""
import numpy as np

from suite import Case


def statistics(x, eps):
    x = x.astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + eps)
    return mean, rstd


def forward(name, rng, rows, n, stride, block, dtype, tolerance):
    x = (rng.standard_normal((rows, stride)) * 2 + 0.5).astype(dtype)
    w = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    eps = 1e-5
    mean, rstd = statistics(x[:, :n], eps)
    y = np.full((rows, stride), np.nan, dtype)
    want = np.full(y.shape, np.nan)
    want[:, :n] = ((x[:, :n] - mean[:, None]) * rstd[:, None] * w.astype(np.float64)
                   + b.astype(np.float64))
    return Case(name, "layer_norm_fwd", (rows,),
                [("X", x), ("Y", y), ("W", w), ("B", b),
                 ("Mean", np.zeros(rows, np.float32)), ("Rstd", np.zeros(rows, np.float32)),
                 ("stride", stride), ("N", n), ("eps", eps)],
                {"Y": (want, tolerance), "Mean": (mean, 1e-5), "Rstd": (rstd, 1e-5)},
                {"BLOCK_SIZE": block})


def backward_dx(rng, rows, n, groups, block):
    x = rng.standard_normal((rows, n)).astype(np.float16)
    dy = rng.standard_normal((rows, n)).astype(np.float16)
    w = rng.standard_normal(n).astype(np.float16)
    mean, rstd = statistics(x, 1e-5)
    mean, rstd = mean.astype(np.float32), rstd.astype(np.float32)
    xhat = (x - mean[:, None].astype(np.float64)) * rstd[:, None]
    wdy = w.astype(np.float64) * dy
    dx = (wdy - xhat * (xhat * wdy).mean(1, keepdims=True)
          - wdy.mean(1, keepdims=True)) * rstd[:, None]
    group = np.arange(rows) % groups
    dw = np.stack([(dy * xhat)[group == g].sum(0) for g in range(groups)])
    db = np.stack([dy.astype(np.float64)[group == g].sum(0) for g in range(groups)])
    lock = np.concatenate([np.zeros(groups), np.ones(groups)]).astype(np.int32)
    return Case("bwd_dx", "layer_norm_bwd_dx", (rows,),
                [("DX", np.zeros((rows, n), np.float16)), ("DY", dy),
                 ("DW", np.full((groups, n), np.nan, np.float32)),
                 ("DB", np.full((groups, n), np.nan, np.float32)),
                 ("X", x), ("W", w), ("Mean", mean), ("Rstd", rstd),
                 ("Lock", np.zeros(2 * groups, np.int32)), ("stride", n), ("N", n)],
                {"DX": (dx, 2e-3), "DW": (dw, 1e-5), "DB": (db, 1e-5), "Lock": (lock, 0)},
                {"GROUP_SIZE_M": groups, "BLOCK_SIZE_N": block})


def backward_dwdb(rng, m, n, block_m, block_n):
    dw = rng.standard_normal((m, n)).astype(np.float32)
    db = rng.standard_normal((m, n)).astype(np.float32)
    return Case("bwd_dwdb", "layer_norm_bwd_dwdb", (-(-n // block_n),),
                [("DW", dw), ("DB", db), ("FINAL_DW", np.zeros(n, np.float32)),
                 ("FINAL_DB", np.zeros(n, np.float32)), ("M", m), ("N", n)],
                {"FINAL_DW": (dw.astype(np.float64).sum(0), 1e-5),
                 "FINAL_DB": (db.astype(np.float64).sum(0), 1e-5)},
                {"BLOCK_SIZE_M": block_m, "BLOCK_SIZE_N": block_n})


def cases():
    rng = np.random.default_rng(5)
    yield forward("fwd_fp16_chunked", rng, 37, 300, 304, 128, np.float16, 2e-3)
    yield forward("fwd_fp32", rng, 19, 1000, 1000, 1024, np.float32, 1e-5)
    yield backward_dx(rng, 45, 300, 8, 512)
    yield backward_dwdb(rng, 13, 300, 4, 64)
