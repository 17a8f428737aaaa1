"""Cases of matmul.tl: both values of ACTIVATION on ragged M, N and K (C
written into a wider buffer whose extra columns keep their NaN), a grid
whose last group of tile rows is shorter than GROUP_SIZE_M, rows
specialized as aligned (Triton's JIT specialization; on sm_90a, bulk
copies, and with 256-row tiles warp specialization), and the tutorial's
wrapped form of the kernel."""
import numpy as np

from suite import Case


def cdiv(a, b):
    return -(-a // b)


def case(name, rng, m, n, k, blocks, group, activation, num_warps=4, signature=None,
         kernel="matmul_kernel"):
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
    if signature:
        signature += f", {bm}, {bn}, {bk}, {group}, '{activation}'"
    return Case(name, kernel, (cdiv(m, bm) * cdiv(n, bn),),
                [("a_ptr", a), ("b_ptr", b), ("c_ptr", c), ("M", m), ("N", n), ("K", k),
                 ("stride_am", k), ("stride_ak", 1), ("stride_bk", n), ("stride_bn", 1),
                 ("stride_cm", ldc), ("stride_cn", 1)],
                {"c_ptr": (want, 2e-3)},
                {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                 "GROUP_SIZE_M": group, "ACTIVATION": activation},
                num_warps=num_warps, signature=signature)


def cases():
    rng = np.random.default_rng(8)
    yield case("leaky_relu", rng, 100, 72, 77, (32, 32, 32), 2, "leaky_relu")
    yield case("no_activation", rng, 100, 72, 77, (32, 32, 32), 2, "")
    # 7 rows of tiles in groups of 3: the last group has one row.
    yield case("ragged_groups", rng, 112, 48, 64, (16, 16, 16), 3, "leaky_relu")
    # N, K and the row strides specialized as divisible by 16 and the unit
    # strides as 1, as Triton's JIT would: on sm_90a the copy engine reads
    # the advancing boxes, the last one past K and M and N's edges.
    aligned = ("*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, 1, i32:16, 1, "
               "i32, 1")
    yield case("bulk_copies", rng, 100, 80, 112, (64, 64, 32), 2, "", signature=aligned)
    yield case("bulk_copies_8_warps", rng, 200, 144, 176, (128, 128, 64), 2, "leaky_relu",
               num_warps=8, signature=aligned)
    # The tutorial's own form, rows and columns wrapped modulo M and N: the
    # copy engine reads zeros past them, which only feed masked-off results.
    yield case("wrapped", rng, 100, 72, 77, (32, 32, 32), 2, "leaky_relu",
               kernel="wrapped_matmul_kernel")
    yield case("wrapped_bulk_copies", rng, 200, 144, 176, (128, 64, 64), 2, "leaky_relu",
               num_warps=8, signature=aligned, kernel="wrapped_matmul_kernel")
    # 256-row tiles on two warpgroups: on sm_90a the cost model gives the
    # copies a producer warpgroup of their own (warp specialization).
    yield case("warp_specialized", rng, 300, 144, 176, (256, 128, 64), 2, "leaky_relu",
               num_warps=8, signature=aligned)
    yield case("wrapped_warp_specialized", rng, 300, 144, 176, (256, 128, 64), 1, "",
               num_warps=8, signature=aligned, kernel="wrapped_matmul_kernel")
