"""Cases of matmul.tl: both values of ACTIVATION on ragged M, N and K (C
written into a wider buffer whose extra columns keep their NaN), and a
grid whose last group of tile rows is shorter than GROUP_SIZE_M."""
import numpy as np

from suite import Case


def cdiv(a, b):
    return -(-a // b)


def case(name, rng, m, n, k, blocks, group, activation):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    ldc = n + 5
    c = np.full((m, ldc), np.nan, np.float16)
    want = np.full(c.shape, np.nan)
    product = a.astype(np.float64) @ b.astype(np.float64)
    if activation == "leaky_relu":
        product = np.where(product >= 0, product, 0.01 * product)
    want[:, :n] = product
    bm, bn, bk = blocks
    return Case(name, "matmul_kernel", (cdiv(m, bm) * cdiv(n, bn),),
                [("a_ptr", a), ("b_ptr", b), ("c_ptr", c), ("M", m), ("N", n), ("K", k),
                 ("stride_am", k), ("stride_ak", 1), ("stride_bk", n), ("stride_bn", 1),
                 ("stride_cm", ldc), ("stride_cn", 1)],
                {"c_ptr": (want, 2e-3)},
                {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                 "GROUP_SIZE_M": group, "ACTIVATION": activation})


def cases():
    rng = np.random.default_rng(8)
    yield case("leaky_relu", rng, 100, 72, 77, (32, 32, 32), 2, "leaky_relu")
    yield case("no_activation", rng, 100, 72, 77, (32, 32, 32), 2, "")
    # 7 rows of tiles in groups of 3: the last group has one row.
    yield case("ragged_groups", rng, 112, 48, 64, (16, 16, 16), 3, "leaky_relu")
