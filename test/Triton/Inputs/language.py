"""Cases of language.tl against NumPy and Python: the values Triton 3.6
computes (checked against it on the GPU by bench/triton_suite_vs_triton.py)."""
import numpy as np

from suite import Case


def early_return_rows():
    rows = []
    for n in range(8):
        row = [0, 0, 0, 0]
        row[0] = 1
        if n > 1 and n > 5:
            row[1] = 2
        elif n > 1 and n != 3:
            row[2] = 3
            if n % 2 == 0:
                if n != 4:
                    row[3] = 5
            else:
                row[3] = 4
        elif n <= 1:
            row[3] = 4
        rows.append(row)
    return np.array(rows, np.int32).reshape(-1)


def cases():
    a = np.array([-17, 17, -128, 127], np.int8)
    c = np.array([6, 1, 7, 0], np.uint8)
    u = np.array([239, 17, 128, 127], np.uint8)
    s = np.array([6, 1, 7, 0], np.int8)
    d = np.full(4, 1 + 2.0**-30)
    h = np.ones(4, np.float32)
    # int8 >> uint8: arithmetic (a is signed), the result a uint8;
    # uint8 >> int8: logical.
    shifts = np.concatenate([(a.astype(np.int64) >> c).astype(np.uint8),
                             (u.astype(np.int64) >> s).astype(np.uint8)])
    yield Case("promotions", "promotions", (1,),
               [("a_ptr", a), ("c_ptr", c), ("u_ptr", u), ("s_ptr", s), ("d_ptr", d),
                ("h_ptr", h), ("n", 2**64 - 1), ("shifts_ptr", np.zeros(8, np.uint8)),
                ("const_ptr", np.zeros(4, np.int32)), ("sum_ptr", np.zeros(4)),
                ("n_ptr", np.zeros(1, np.uint64)), ("mask_ptr", np.zeros(4, np.int32))],
               {"shifts_ptr": (shifts, 0),
                "const_ptr": (-64 >> s.astype(np.int32), 0),
                "sum_ptr": (d + 1.0, 0),
                "n_ptr": (np.array([2**64 - 1], np.uint64), 0),
                "mask_ptr": (np.array([0, 7, 7, 0], np.int32), 0)})

    x = np.arange(8, dtype=np.float32) - 2.5
    acc = np.float32(x[:4].sum())
    out = np.zeros(6, np.float32)
    out[:4] = 2 * x[:4] + acc
    out[4] = acc
    out[5] = x[7] + 1
    yield Case("zero_d", "zero_d", (1,),
               [("x_ptr", x), ("out_ptr", np.zeros(6, np.float32))],
               {"out_ptr": (out, 0)})

    yield Case("early_return", "early_return", (8,),
               [("out_ptr", np.zeros(32, np.int32))],
               {"out_ptr": (early_return_rows(), 0)})

    x = np.linspace(0.5, 4.0, 64).astype(np.float32)
    y = 2 * (1 / np.sqrt(x.astype(np.float64)) + np.exp2(x.astype(np.float64)) + 1)
    yield Case("imported", "imported", (1,),
               [("x_ptr", x), ("y_ptr", np.zeros(64, np.float32))],
               {"y_ptr": (y, 1e-6)}, {"N": 64})
