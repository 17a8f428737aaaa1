"""Cases of grouped_gemm.tl: three ragged problems through host address
tables (Table: the GPU harness fills them from its tensors), and the same
problems packed into three buffers, whose tables the kernel writes, shared
by four programs and by one."""
import numpy as np

from suite import Case, Table

SIZES = [(40, 48, 32), (64, 24, 72), (17, 33, 20)]
BLOCKS = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32}


def problems(rng):
    a = [rng.standard_normal((m, k)).astype(np.float16) for m, n, k in SIZES]
    b = [rng.standard_normal((k, n)).astype(np.float16) for m, n, k in SIZES]
    c = [x.astype(np.float64) @ y.astype(np.float64) for x, y in zip(a, b)]
    return a, b, c


def tables():
    sizes = np.array(SIZES, np.int32)
    lds = np.array([(k, n, n) for m, n, k in SIZES], np.int32)
    return [("group_gemm_sizes", sizes), ("g_lds", lds), ("group_size", len(SIZES))]


def packed(name, a, b, c, programs):
    starts = lambda arrays: np.cumsum([0] + [x.size for x in arrays])
    c_sizes = [m * n for m, n, k in SIZES]
    offsets = np.stack([starts(a)[:-1], starts(b)[:-1], np.cumsum([0] + c_sizes)[:-1]], 1)
    c_packed = np.full(sum(c_sizes), np.nan, np.float16)
    want = np.concatenate([x.ravel() for x in c])
    return Case(name, "grouped_matmul_packed", (programs,),
                [("a_ptr", np.concatenate([x.ravel() for x in a])),
                 ("b_ptr", np.concatenate([x.ravel() for x in b])),
                 ("c_ptr", c_packed), ("group_offsets", offsets.astype(np.int64)),
                 ("group_a_ptrs", np.zeros(len(SIZES), np.int64)),
                 ("group_b_ptrs", np.zeros(len(SIZES), np.int64)),
                 ("group_c_ptrs", np.zeros(len(SIZES), np.int64))] + tables(),
                {"c_ptr": (want, 2e-3)}, dict(BLOCKS, NUM_PROGRAMS=programs))


def cases():
    rng = np.random.default_rng(12)
    a, b, c = problems(rng)
    outputs = [np.full((m, n), np.nan, np.float16) for m, n, k in SIZES]
    yield Case("host_tables", "grouped_matmul_kernel", (4,),
               [("group_a_ptrs", Table(a)), ("group_b_ptrs", Table(b)),
                ("group_c_ptrs", Table(outputs))] + tables(),
               {"group_c_ptrs": (c, 2e-3)}, dict(BLOCKS, NUM_PROGRAMS=4))
    yield packed("packed", a, b, c, 4)
    yield packed("packed_one_program", a, b, c, 1)
