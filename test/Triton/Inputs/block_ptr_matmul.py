"""Cases of block_ptr_matmul.tl: ragged M, N and K with a column-major B
(a transposed array's strides) and an fp16 C in a wider buffer whose extra
columns keep their NaN; an fp32 C on full blocks."""
import numpy as np

from suite import Case


def cdiv(a, b):
    return -(-a // b)


def case(name, rng, m, n, k, blocks, c_dtype, tolerance):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b_t = rng.standard_normal((n, k)).astype(np.float16)   # B = b_t.T, column-major
    bias = rng.standard_normal(n).astype(np.float32)
    ldc = n + 3
    c = np.full((m, ldc), np.nan, c_dtype)
    want = np.full(c.shape, np.nan)
    want[:, :n] = a.astype(np.float64) @ b_t.T.astype(np.float64) + bias
    bm, bn, bk = blocks
    return Case(name, "block_ptr_matmul", (cdiv(m, bm), cdiv(n, bn)),
                [("a_ptr", a), ("b_ptr", b_t), ("bias_ptr", bias), ("c_ptr", c),
                 ("M", m), ("N", n), ("K", k), ("stride_am", k), ("stride_ak", 1),
                 ("stride_bk", 1), ("stride_bn", k), ("stride_cm", ldc), ("stride_cn", 1)],
                {"c_ptr": (want, tolerance)},
                {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk})


def cases():
    rng = np.random.default_rng(9)
    yield case("column_major_b", rng, 90, 70, 50, (32, 32, 32), np.float16, 2e-3)
    yield case("fp32_out", rng, 64, 96, 128, (32, 32, 64), np.float32, 1e-5)
