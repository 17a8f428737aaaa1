"""Cases of descriptor_matmul.tl: ragged M, N and K (rows 16-byte aligned,
as Hopper's bulk copies want) with fewer programs than tiles, and more
programs than tiles (some do nothing)."""
import numpy as np

from suite import Case


def case(name, rng, m, n, k, blocks, programs):
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bm, bn, bk = blocks
    return Case(name, "descriptor_matmul", (programs,),
                [("a_ptr", a), ("b_ptr", b), ("c_ptr", np.full((m, n), np.nan, np.float16)),
                 ("M", m), ("N", n), ("K", k)],
                {"c_ptr": (a.astype(np.float64) @ b.astype(np.float64), 2e-3)},
                {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "NUM_PROGRAMS": programs})


def cases():
    rng = np.random.default_rng(10)
    yield case("ragged", rng, 100, 72, 88, (32, 32, 32), 5)
    yield case("more_programs_than_tiles", rng, 48, 40, 24, (32, 16, 16), 9)
