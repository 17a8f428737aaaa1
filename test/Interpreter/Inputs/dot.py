"""Runs dot.tl's kernels on the interpreter (tile-run) for every dtype,
precision and shape, and checks each result bit for bit against numpy
emulating the GPU's numeric classes: products of f16, bf16 and tf32 values
are exact in f32, so adding them one k at a time in float32 is exactly what
the interpreter does. ieee is emulated in float64 and rounded once (fmaf,
unless a double rounding hits, which these fixed inputs do not); f64 is
checked to 1e-12.

dot.py TILE_RUN KERNEL_FILE"""
import subprocess
import sys

import numpy as np

tile_run, source = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(2024)
f32 = np.float32


def tf32(x):
    """cvt.rna.tf32.f32: round to 10 mantissa bits, ties away from zero."""
    bits = np.ascontiguousarray(x, f32).view(np.uint32)
    finite = (bits & 0x7F800000) != 0x7F800000
    rounded = np.where(finite, (bits + 0x1000) & 0xFFFFE000, bits)
    return rounded.astype(np.uint32).view(f32)


def bf16_bits(x):
    """bf16 bit patterns near x (rounded to nearest, ties up)."""
    bits = np.ascontiguousarray(x, f32).view(np.uint32)
    return ((bits + 0x8000) >> 16).astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(f32)


def sum_exact_products(a, b, c):
    """acc = c; acc += a[..., k] * b[..., k, :] in float32, k ascending.
    Bit-exact when every product is exact in f32."""
    acc = c.astype(f32)
    for k in range(a.shape[-1]):
        acc = acc + a[..., :, k:k + 1].astype(f32) * b[..., k:k + 1, :].astype(f32)
    return acc


def fma_f32(a, b, c):
    """fmaf per k, emulated in float64 and rounded to float32 each step."""
    acc = c.astype(f32)
    for k in range(a.shape[-1]):
        p = a[..., :, k:k + 1].astype(np.float64) * b[..., k:k + 1, :].astype(np.float64)
        acc = (acc.astype(np.float64) + p).astype(f32)
    return acc


def tf32x3(a, b, c):
    big_a, big_b = tf32(a), tf32(b)
    small_a, small_b = tf32(a - big_a), tf32(b - big_b)
    acc = c.astype(f32)
    for k in range(a.shape[-1]):
        col = (Ellipsis, slice(None), slice(k, k + 1))
        row = (Ellipsis, slice(k, k + 1), slice(None))
        acc = acc + small_a[col] * big_b[row]
        acc = acc + big_a[col] * small_b[row]
        acc = acc + big_a[col] * big_b[row]
    return acc


def run(kernel, consts, args, signature=None):
    """tile-run KERNEL on the .npy files ARGS; the output's array."""
    cmd = [tile_run, source, "--kernel", kernel, "--grid", "1", "-o", "out"]
    if signature:
        cmd += ["--signature", signature]
    else:
        for name, value in consts.items():
            cmd += ["-D", f"{name}={value}"]
    names = []
    for i, array in enumerate(args):
        names.append(f"arg{i}.npy")
        np.save(names[-1], array)
    subprocess.run(cmd + names, check=True)
    return np.load("out/out_ptr.npy")


def check(name, got, expected):
    assert got.dtype == expected.dtype, (name, got.dtype, expected.dtype)
    bits = f"u{got.itemsize}"
    bad = np.flatnonzero(got.reshape(-1).view(bits) != expected.reshape(-1).view(bits))
    assert bad.size == 0, (name, bad[:5], got.reshape(-1)[bad[:5]],
                           expected.reshape(-1)[bad[:5]])
    print("ok", name)


def floats(shape):
    # Full 24-bit significands: the low mantissa bits tf32 drops are set.
    return rng.uniform(-2, 2, shape).astype(f32)


PRECISIONS = {"tf32": 0, "tf32x3": 1, "ieee": 2}
SHAPES = [(3, 3, 3), (1, 1, 1), (100, 5, 3), (4, 6, 1), (17, 13, 9)]


def dot2d(m, n, k, a, b, c, precision="tf32", signature=None):
    consts = dict(M=m, N=n, K=k, PREC=PRECISIONS[precision])
    if signature:
        signature += f", {m}, {n}, {k}, {PRECISIONS[precision]}"
    return run("dot_kernel", consts, [a, b, c, np.zeros_like(c)], signature)


# fp32 in each precision, every shape.
for m, n, k in SHAPES:
    a, b, c = floats((m, k)), floats((k, n)), floats((m, n))
    exact = a.astype(np.float64) @ b.astype(np.float64) + c
    got = {p: dot2d(m, n, k, a, b, c, p) for p in PRECISIONS}
    check(f"f32 tf32 {m}x{n}x{k}", got["tf32"], sum_exact_products(tf32(a), tf32(b), c))
    check(f"f32 tf32x3 {m}x{n}x{k}", got["tf32x3"], tf32x3(a, b, c))
    check(f"f32 ieee {m}x{n}x{k}", got["ieee"], fma_f32(a, b, c))
    if k > 1:
        # tf32 is not the exact product; ieee and tf32x3 are far closer.
        assert np.any(got["tf32"] != got["ieee"]), "tf32 equals ieee"
        err = {p: np.abs(got[p] - exact).max() for p in PRECISIONS}
        assert err["ieee"] < err["tf32"] / 16 and err["tf32x3"] < err["tf32"] / 16, err
        print("ok", f"f32 {m}x{n}x{k}: tf32 differs from ieee")

# tf32 rounds to nearest with ties away from zero, and passes NaN and inf.
ties = np.array([[1 + 2**-11, -(1 + 2**-11), 1 + 3 * 2**-11, 1 + 2**-12]], f32)
one = np.ones((1, 1), f32)
check("tf32 ties away from zero",
      dot2d(4, 1, 1, ties.T, one, np.zeros((4, 1), f32)),
      np.array([[1 + 2**-10], [-(1 + 2**-10)], [1 + 2**-9], [1]], f32))
special = np.array([[np.inf, 1, np.nan]], f32)
out = dot2d(1, 3, 1, one, special, np.zeros((1, 3), f32))
assert np.isinf(out[0, 0]) and out[0, 1] == 1 and np.isnan(out[0, 2]), out
print("ok tf32 inf and nan")
# tf32x3 keeps an infinity: its correction terms are 0 * inf, skipped.
out = dot2d(1, 1, 2, np.array([[1.5, 1]], f32), np.array([[np.inf], [2]], f32),
            np.zeros((1, 1), f32), "tf32x3")
assert np.isposinf(out[0, 0]), out
print("ok tf32x3 inf")

# fp16 into fp32 and into fp16 (summed in f32, rounded once at the end).
for m, n, k in SHAPES:
    a = floats((m, k)).astype(np.float16)
    b = floats((k, n)).astype(np.float16)
    c = floats((m, n))
    check(f"f16->f32 {m}x{n}x{k}", dot2d(m, n, k, a, b, c), sum_exact_products(a, b, c))
    h = c.astype(np.float16)
    check(f"f16->f16 {m}x{n}x{k}", dot2d(m, n, k, a, b, h),
          sum_exact_products(a, b, h).astype(np.float16))

# bf16 (uint16 bits, typed by the signature) into fp32.
for m, n, k in SHAPES:
    a, b, c = bf16_bits(floats((m, k))), bf16_bits(floats((k, n))), floats((m, n))
    got = dot2d(m, n, k, a, b, c, signature="*bf16, *bf16, *fp32, *fp32")
    check(f"bf16 {m}x{n}x{k}", got, sum_exact_products(bf16_value(a), bf16_value(b), c))

# int8 into int32, wrapping past 2^31.
for m, n, k in SHAPES:
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c = rng.integers(2**31 - 20000, 2**31, (m, n)).astype(np.int32)
    wide = a.astype(np.int64) @ b.astype(np.int64) + c
    expected = ((wide + 2**31) % 2**32 - 2**31).astype(np.int32)
    check(f"i8 {m}x{n}x{k}", dot2d(m, n, k, a, b, c), expected)

# fp64.
for m, n, k in SHAPES:
    a, b, c = (rng.uniform(-2, 2, s) for s in ((m, k), (k, n), (m, n)))
    got = dot2d(m, n, k, a, b, c)
    assert got.dtype == np.float64 and np.allclose(got, a @ b + c, rtol=1e-12, atol=1e-12)
    print("ok", f"f64 {m}x{n}x{k}")

# Batched: 2 x (5x7) x (7x3), fp32 (tf32 and ieee) and fp16.
B, M, N, K = 2, 5, 3, 7
a, b, c = floats((B, M, K)), floats((B, K, N)), floats((B, M, N))
for p in ("tf32", "ieee"):
    got = run("batched_kernel", dict(B=B, M=M, N=N, K=K, PREC=PRECISIONS[p]),
              [a, b, c, np.zeros_like(c)])
    ref = sum_exact_products(tf32(a), tf32(b), c) if p == "tf32" else fma_f32(a, b, c)
    check(f"batched f32 {p} {B}x{M}x{N}x{K}", got, ref)
a16, b16 = a.astype(np.float16), b.astype(np.float16)
got = run("batched_kernel", dict(B=B, M=M, N=N, K=K, PREC=0), [a16, b16, c, np.zeros_like(c)])
check(f"batched f16 {B}x{M}x{N}x{K}", got, sum_exact_products(a16, b16, c))

# `acc = tl.dot(a, b); acc += c; acc += tl.dot(a, 2 * b)`: tile-combine
# folds both adds into the dots, so c is where the sums start.
m, n, k = 17, 13, 9
a, b, c = floats((m, k)), floats((k, n)), floats((m, n))
got = run("accumulate_kernel", dict(M=m, N=n, K=k), [a, b, c, np.zeros_like(c)])
ta, tb = tf32(a), tf32(b)
check("no acc, then acc +=", got,
      sum_exact_products(ta, 2 * tb, sum_exact_products(ta, tb, c)))
