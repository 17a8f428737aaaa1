"""Cases of softmax.tl: one program per row, fewer programs than rows (each
walks rows with the grid's stride), and fp16 in and out. Rows are padded
(row strides above n_cols) and the padding of the output holds NaN that no
store may touch."""
import numpy as np

from suite import Case


def reference(x, n_cols):
    x = x[:, :n_cols].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def case(name, rng, rows, cols, stride, block, programs, dtype, tolerance):
    x = (rng.standard_normal((rows, stride)) * 4).astype(dtype)
    out = np.full((rows, stride + 3), np.nan, dtype)
    want = np.full(out.shape, np.nan)
    want[:, :cols] = reference(x, cols)
    return Case(name, "softmax_kernel", (programs,),
                [("out_ptr", out), ("in_ptr", x), ("in_row_stride", stride),
                 ("out_row_stride", stride + 3), ("n_rows", rows), ("n_cols", cols)],
                {"out_ptr": (want, tolerance)}, {"BLOCK_SIZE": block})


def cases():
    rng = np.random.default_rng(2)
    yield case("one_row_per_program", rng, 37, 781, 800, 1024, 37, np.float32, 1e-5)
    yield case("rows_per_program", rng, 53, 100, 100, 128, 8, np.float32, 1e-5)
    yield case("fp16", rng, 16, 300, 301, 512, 5, np.float16, 2e-3)
