"""Cases of descriptor_matmul.tl: ragged M, N and K (rows 16-byte aligned,
as Hopper's bulk copies want) with fewer programs than tiles, and more
programs than tiles (some do nothing). In the bulk_copies cases N and K are
multiples of 16, so that tilec knows the rows are 16-byte aligned and loads
the tiles with bulk tensor copies on sm_90a: ragged edges read as zeros,
and programs of several tiles, each of more K steps than stages, reuse
their mbarriers across tiles and phases."""
import numpy as np

from suite import Case


def case(name, rng, m, n, k, blocks, programs, num_warps=4, signature=None):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bm, bn, bk = blocks
    if signature:
        signature += f", {bm}, {bn}, {bk}, {programs}"
    return Case(name, "descriptor_matmul", (programs,),
                [("a_ptr", a), ("b_ptr", b), ("c_ptr", np.full((m, n), np.nan, np.float16)),
                 ("M", m), ("N", n), ("K", k)],
                {"c_ptr": (a.astype(np.float64) @ b.astype(np.float64), 2e-3)},
                {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "NUM_PROGRAMS": programs},
                num_warps=num_warps, signature=signature)


def cases():
    rng = np.random.default_rng(10)
    yield case("ragged", rng, 100, 72, 88, (32, 32, 32), 5)
    yield case("more_programs_than_tiles", rng, 48, 40, 24, (32, 16, 16), 9)
    # N and K specialized as divisible by 16, as Triton's JIT would.
    aligned = "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16"
    yield case("bulk_copies", rng, 100, 80, 224, (64, 64, 32), 3, signature=aligned)
    yield case("bulk_copies_8_warps", rng, 200, 144, 320, (128, 128, 64), 2, num_warps=8,
               signature=aligned)
