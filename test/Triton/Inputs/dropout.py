"""Cases of dropout.tl against a NumPy Philox (test/Interpreter/Inputs/
philox.py): the keep masks bit for bit, the scaled outputs within fp32
rounding (bit for bit between tilec's GPU kernel and Triton, which divide
alike). The seeded kernel on a ragged and an even length, and with a seed
above 2^32 (an i64 argument)."""
import os
import sys

import numpy as np

from suite import Case

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Interpreter", "Inputs"))
import philox  # noqa: E402


def keep(seed, n, p):
    return philox.uniform(philox.philox(seed, np.arange(n))[0]) > np.float32(p)


def scaled(x, kept, p):
    return np.where(kept, x.astype(np.float64) / (1 - np.float64(np.float32(p))), 0.0)


def seeded(name, rng, n, block, p, seed):
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n + 7, np.nan, np.float32)
    want = np.full(out.shape, np.nan)
    want[:n] = scaled(x, keep(seed, n, p), p)
    return Case(name, "dropout_seeded", (-(-n // block),),
                [("x_ptr", x), ("out_ptr", out), ("n_elements", n), ("p", p), ("seed", seed)],
                {"out_ptr": (want, 1e-6)},
                {"BLOCK_SIZE": block, "EVEN_N": n % block == 0},
                exact_vs_triton=["out_ptr"])


def cases():
    rng = np.random.default_rng(4)
    yield seeded("seeded", rng, 3001, 1024, 0.4, 123)
    yield seeded("seeded_even", rng, 2048, 512, 0.5, 2024)
    yield seeded("seeded_big_seed", rng, 1000, 256, 0.25, 81985529216486895)
    n, p, seed = 5000, 0.3, 77
    kept = keep(seed, n, p)
    yield Case("keep_mask", "dropout_keep_mask", (-(-n // 1024),),
               [("keep_ptr", np.full(n, 9, np.int8)), ("n_elements", n), ("p", p), ("seed", seed)],
               {"keep_ptr": (kept.astype(np.int8), 0)}, {"BLOCK_SIZE": 1024})
    x = rng.standard_normal(n).astype(np.float32)
    yield Case("with_mask", "dropout_with_mask", (-(-n // 1024),),
               [("x_ptr", x), ("keep_ptr", kept.astype(np.int8)),
                ("out_ptr", np.zeros(n, np.float32)), ("n_elements", n), ("p", p)],
               {"out_ptr": (scaled(x, kept, p), 1e-6)}, {"BLOCK_SIZE": 1024},
               exact_vs_triton=["out_ptr"])
