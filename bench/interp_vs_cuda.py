#!/usr/bin/env python3
"""Differential test of the GPU lowering: runs kernels with tile-run on the
interpreter and on the GPU with the same .npy inputs and compares every
output buffer. Exact equality is expected except where the GPU computes
approximately (ex2.approx for tl.exp, libdevice for tl.log, sin, erf...),
which gets a tolerance.

    python3 bench/interp_vs_cuda.py --tile-run build/bin/tile-run
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
rng = np.random.default_rng(0)

# name, .tl file, grid, options, inputs (name -> array or scalar), tolerance
CASES = [
    ("vector_add", "dsl-examples/vector_add.tl", "977", ["-D", "BLOCK_SIZE=1024"],
     [("x", rng.standard_normal(1000003, dtype=np.float32)),
      ("y", rng.standard_normal(1000003, dtype=np.float32)),
      ("out", np.zeros(1000003, np.float32)), 1000003], 0),
    ("transpose ragged", "dsl-examples/transpose.tl", "16,13",
     ["-D", "BLOCK_M=64", "-D", "BLOCK_N=64"],
     [("a", rng.standard_normal((1000, 777), dtype=np.float32)),
      ("t", np.full((777, 1000), -1, np.float32)), 1000, 777, 777, 1000], 0),
    ("transpose aligned", "dsl-examples/transpose.tl", "16,8",
     ["-D", "BLOCK_M=64", "-D", "BLOCK_N=64"],
     [("a", rng.standard_normal((1024, 512), dtype=np.float32)),
      ("t", np.full((512, 1024), -1, np.float32)), 1024, 512, 512, 1024], 0),
    ("scalar_loop_branch", "bench/differential/scalar_loop_branch.tl", "1",
     ["-D", "BLOCK=256"],
     [("x", rng.random(1000, dtype=np.float32)),
      ("o", np.zeros(257, np.float32)), 1000], 1e-5),
    ("mixed_precision", "bench/differential/mixed_precision.tl", "5",
     ["-D", "BLOCK=1024", "--signature",
      "*fp16, *bf16, *bf16, *i1, i32, 1024"],
     [("a", rng.standard_normal(5000).astype(np.float16)),
      ("b", (rng.standard_normal(5000).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)),
      ("c", np.zeros(5000, np.uint16)),
      ("f", rng.random(5000) < 0.5), 5000], 1e-2),
    ("small_tiles", "bench/differential/small_tiles.tl", "1",
     ["-D", "BM=16", "-D", "BN=8"],
     [("x", rng.integers(-1000, 1000, 16 * 16, dtype=np.int32)),
      ("y", np.zeros(8 * 16 + 16, np.int32)), 16], 0),
]


def odd_extents_case(R, C, K, warps):
    """test/Interpreter/odd_extents.tl, every buffer followed by 64 sentinels
    that no access may reach (tiles of R x C, C and K, none a power of two
    in general)."""
    def tail(a):
        return np.concatenate([a.ravel(), np.full(64, -77, a.dtype)])
    return (f"odd_extents {R}x{C}x{K}", "test/Interpreter/odd_extents.tl", "1",
            ["-D", f"R={R}", "-D", f"C={C}", "-D", f"K={K}", "--num-warps", str(warps)],
            [("x", tail(rng.integers(-9, 10, (R, C)).astype(np.float32))),
             ("w", tail(rng.integers(-3, 4, K).astype(np.float32))),
             ("y", tail(np.zeros(R * C, np.float32))),
             ("out", tail(np.zeros(R + 3 * C + 1, np.float32))),
             ("acc", tail(np.arange(C + 1, dtype=np.float32)))], 0)


CASES += [odd_extents_case(3, 5, 3, 4), odd_extents_case(6, 100, 3, 4),
          odd_extents_case(24, 200, 5, 8), odd_extents_case(1, 1000, 7, 4),
          odd_extents_case(100, 3, 3, 2)]

# Python on scalars and the atomic family (the interpreter tests' kernels).
SCALARS = "test/Interpreter/python_scalars.tl"
ATOMICS = "test/Interpreter/atomic_family.tl"
CASES += [
    ("min/max/abs", SCALARS, "1", ["--kernel", "scalars"],
     [("s", np.full(8, -1, np.int32)), 4, -9, -2.5], 0),
    ("while (collatz)", SCALARS, "1", ["--kernel", "collatz"],
     [("c", np.full(1, -1, np.int32)), 27], 0),
    ("early return", SCALARS, "8", ["--kernel", "guarded"],
     [("g", np.full(8, -1, np.int32)), 5], 0),
    ("float('-inf')", SCALARS, "1", ["--kernel", "masked_max"],
     [("x", np.array([3, -7, 5], np.float32)), ("m", np.zeros(3, np.float32)), 2], 0),
    ("None bias", SCALARS, "1",
     ["--kernel", "optional_bias", "--signature", "*fp32, None"],
     [("x", np.array([3.0], np.float32))], 0),
    ("float max/min", ATOMICS, "2", ["--kernel", "float_extremes"],
     [("a", rng.standard_normal(64).astype(np.float32)),
      ("o", np.array([0.0] * 32 + [-0.5] * 32, np.float32))], 0),
    ("and/or/xor/min", ATOMICS, "1", ["--kernel", "bitwise"],
     [("p", np.array([0b1111, 0b1010, 7, -1], np.int32))], 0),
    ("cas/xchg lock", ATOMICS, "64", ["--kernel", "locked_rows"],
     [("acc", np.zeros(16, np.float32)), ("lock", np.zeros(2, np.int32))], 0),
    ("math functions", "test/Interpreter/math_functions.tl", "1", [],
     [("x", rng.uniform(-6, 6, 64).astype(np.float32)),
      ("u", rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)),
      ("o", np.zeros(8 * 64, np.float32)), ("h", np.zeros(64, np.int32))], 1e-6),
    ("bitcast", "test/Interpreter/bitcast.tl", "1", ["--kernel", "views"],
     [("x", rng.standard_normal(8).astype(np.float32)), ("y", np.zeros(8, np.int32)),
      ("z", np.zeros(8, np.float16))], 0),
    ("hints", "test/Interpreter/hints.tl", "8", [],
     [("x", rng.standard_normal(64).astype(np.float32)),
      ("y", np.zeros(64, np.float32)), 8], 0),
    ("cache modifiers", "test/Frontend/cache_modifiers.tl", "1",
     ["--kernel", "hints", "--num-warps", "1"],
     [("x", rng.standard_normal(128).astype(np.float32)),
      ("y", np.zeros(128, np.float32))], 0),
    ("libdevice and randn", "test/Interpreter/libdevice.tl", "1", [],
     [("x", rng.uniform(-6, 6, 64).astype(np.float32)),
      ("o", np.zeros(20 * 64, np.float32)), 42], 4e-6),
]

# libdevice.popc and clz (test/Interpreter/bit_counts.tl): 0, -1 and the
# extremes, then random bits, from their own generator so that the other
# cases keep their inputs.
_bits = np.random.default_rng(37)
CASES += [
    ("popc and clz", "test/Interpreter/bit_counts.tl", "1", [],
     [("x", np.concatenate([[0, -1, 1, -2**31, 2**31 - 1, 256],
                            _bits.integers(-2**31, 2**31, 58)]).astype(np.int32)),
      ("y", np.concatenate([[0, -1, 1, -2**63, 2**63 - 1, 1 << 40],
                            _bits.integers(-2**63, 2**63 - 1, 58, endpoint=True)])),
      ("o", np.zeros(5 * 64, np.int32))], 0),
]

# libdevice's rounded arithmetic, float classes and ffs
# (test/Interpreter/libdevice_rounded.tl): the interpreter rounds each as
# the GPU's add.rz, div.rp, sqrt.rm... do, so they agree exactly.
_r = np.random.default_rng(41)
_x = _r.standard_normal(64) * 10.0 ** _r.integers(-6, 7, 64)
_y = _r.standard_normal(64) * 10.0 ** _r.integers(-6, 7, 64)
_s = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 1e-40,
               -1e-40, 3.4e38, -3.4e38, 2.0, -0.5, 1e30, -1e30])
_i = np.array([0, 1, 2, 3, 8, -1, -2**31, 2**31 - 1, 96, 1 << 20, 12, 7, -8,
               1 << 30, 5, 64], np.int64)
CASES += [
    ("libdevice rounded arithmetic", "test/Interpreter/libdevice_rounded.tl", "1",
     ["--kernel", "rounded"],
     [("x", _x.astype(np.float32)), ("y", _y.astype(np.float32)), ("xd", _x),
      ("yd", _y), ("o32", np.zeros(24 * 64, np.float32)),
      ("o64", np.zeros(24 * 64, np.float64))], 0),
    ("libdevice classes and ffs", "test/Interpreter/libdevice_rounded.tl", "1",
     ["--kernel", "classes"],
     [("s", _s.astype(np.float32)), ("sd", _s), ("i", _i.astype(np.int32)),
      ("il", _i * (1 << 31)), ("c", np.zeros(11 * 16, np.int32))], 0),
]

# Integer / and % by zero (test/Interpreter/integer_division.tl): the
# interpreter gives what the GPU's divisions give, of every width.
CASES += [
    (f"{dt} by zero", "test/Interpreter/integer_division.tl", "1", [],
     [("a", np.array(v, dt)), ("b", np.zeros(8, dt)), ("q", np.zeros(8, dt)),
      ("r", np.zeros(8, dt))], 0)
    for dt, v in (("int8", [-7, 7, -128, 127, 0, 1, -1, 5]),
                  ("int32", [-7, 7, -2**31, 2**31 - 1, 0, 1, -1, 5]),
                  ("int64", [-7, 7, 2**32, 2**63 - 1, 0, 1, -1, -2**63]),
                  ("uint16", [0, 1, 7, 100, 65535, 5, 3, 2]),
                  ("uint64", [0, 1, 2**32, 2**64 - 1, 2**40, 5, 3, 2]))]

# tl.cat (test/Interpreter/cat.tl): 1-D and 2-D, the order kept.
CASES += [
    ("cat", "test/Interpreter/cat.tl", "1", ["--kernel", "cat"],
     [("x", np.arange(48, dtype=np.int32)), ("o", np.zeros(64, np.int32))], 0),
]


# The shape functions, as renamed registers and conversions, at several
# CTA sizes (each changes which layouts the shape ops see).
CASES += [
    (f"shapes ({w} warps)", "test/Interpreter/shapes.tl", "1",
     ["--kernel", "shapes", "--num-warps", str(w)],
     [("x", rng.integers(-1000, 1000, (8, 16)).astype(np.int32)),
      ("o", np.zeros(2048, np.int32))], 0)
    for w in (1, 2, 4, 8)]


# Block pointers and tensor descriptors: ragged shapes, bounds checks,
# NaN padding (test/Interpreter/block_pointers.tl).
BLOCKS = "test/Interpreter/block_pointers.tl"
_a = rng.integers(-4, 5, (40, 37)).astype(np.float32)
_b = rng.integers(-4, 5, (37, 50)).astype(np.float32)
CASES += [
    ("block pointer matmul", BLOCKS, "3,2",
     ["--kernel", "block_matmul", "-D", "BLOCK_M=16", "-D", "BLOCK_N=32", "-D", "BLOCK_K=16"],
     [("a", _a), ("b", _b), ("c", np.full((40, 50), -1, np.float32)),
      40, 50, 37, 37, 1, 50, 1, 50, 1], 0),
    ("block pointer matmul fp16 64x64x32", BLOCKS, "1,1",
     ["--kernel", "block_matmul", "-D", "BLOCK_M=64", "-D", "BLOCK_N=64", "-D", "BLOCK_K=32"],
     [("a", _a.astype(np.float16)), ("b", _b.astype(np.float16)),
      ("c", np.full((40, 50), -1, np.float32)), 40, 50, 37, 37, 1, 50, 1, 50, 1], 0),
    ("tensor descriptor", BLOCKS, "3,2",
     ["--kernel", "descriptor_scale", "-D", "BLOCK_M=16", "-D", "BLOCK_N=32"],
     [("x", _a), ("y", np.full((40, 37), -1, np.float32)), 40, 37], 0),
    ("NaN padding", BLOCKS, "1",
     ["--kernel", "nan_padding", "-D", "BLOCK_M=64", "-D", "BLOCK_N=64"],
     [("x", _a), ("o", np.zeros((64, 64), np.float32)), 40, 37], 0),
]


# Pointers through int64 addresses and back (test/Interpreter/addresses.tl).
CASES += [
    ("int64 addresses", "test/Interpreter/addresses.tl", "3", [],
     [("x", np.arange(3 * 40, dtype=np.float32) / 8),
      ("y", np.zeros(3 * 40, np.float32)), ("t", np.zeros(6, np.int64)),
      ("b", np.zeros(40, np.int32)), 40], 0),
]


# Arg-reductions, return_indices and xor_sum, ties and NaNs planted
# (test/Interpreter/arg_reductions.tl), at several CTA sizes.
_f = rng.standard_normal((8, 32)).astype(np.float32)
_f[1, 7] = _f[1, 20] = _f[5, 30] = np.nan
_f[3, :] = 2.0
CASES += [
    (f"arg reductions ({w} warps)", "test/Interpreter/arg_reductions.tl", "1",
     ["--num-warps", str(w)],
     [("x", rng.integers(-5, 6, (8, 32)).astype(np.int32)), ("f", _f),
      ("o", np.full(6 * 8 + 2 * 32 + 2 + 8, -99, np.int32))], 0)
    for w in (1, 4, 8)]


# tl.reduce and tl.associative_scan with combine functions, cumsum and
# cumprod (test/Interpreter/combine.tl): integers, so that the GPU's tree
# order must give the interpreter's exact answers; odd extents pad the
# combined axes, and 1000 or 4096 elements over 8 warps put register bits
# above the warp bits.
CASES += [
    (f"combine {r}x{c} ({w} warps)", "test/Interpreter/combine.tl", "1",
     ["--kernel", "combine", "-D", f"R={r}", "-D", f"C={c}", "--num-warps", str(w)],
     [("x", rng.integers(-9, 10, (r, c)).astype(np.int32)),
      ("o", np.full(10000, -99, np.int32))], 0)
    for r, c, w in ((6, 13, 1), (6, 13, 4), (6, 13, 8), (16, 64, 4), (32, 32, 8))]
CASES += [
    (f"long scans {n} ({w} warps)", "test/Interpreter/combine.tl", "1",
     ["--kernel", "long_scans", "-D", f"N={n}", "--num-warps", str(w)],
     [("y", rng.integers(-9, 10, n).astype(np.int32)),
      ("p", np.full(4 * n + 2, -99, np.int32))], 0)
    for n, w in ((1000, 1), (1000, 4), (1000, 8), (4096, 4), (4096, 16))]



# tl.sort, topk, flip and histogram (test/Interpreter/sort.tl): butterflies
# across registers, lanes and warps, NaNs and signed zeros included.
_x = (rng.integers(-40, 40, (4, 32)) / 4).astype(np.float32)
_x[1, 3] = _x[1, 17] = np.nan
_x[2, 5], _x[2, 6] = -0.0, 0.0
CASES += [
    (f"float sorts ({w} warps)", "test/Interpreter/sort.tl", "1",
     ["--kernel", "float_sorts", "-D", "R=4", "-D", "N=32", "-D", "K=8",
      "--num-warps", str(w)],
     [("x", _x), ("out", np.zeros(3 * 4 * 32 + 4 * 8, np.float32))], 0)
    for w in (1, 4, 8)]
CASES += [
    (f"int sorts {n} ({w} warps)", "test/Interpreter/sort.tl", "1",
     ["--kernel", "int_sorts", "-D", f"N={n}", "-D", "K=16", "--num-warps", str(w)],
     [("y", rng.integers(-30000, 30000, n).astype(np.int16)),
      ("iout", np.zeros(3 * n + 16, np.int32))], 0)
    for n, w in ((1024, 1), (1024, 4), (1024, 8), (4096, 16))]
CASES += [
    (f"histogram ({w} warps)", "test/Interpreter/sort.tl", "3",
     ["--kernel", "counts", "-D", "BLOCK=512", "-D", f"BINS={b}", "--num-warps", str(w)],
     [("v", rng.integers(-5, 60, 1300).astype(np.int32)),
      ("h", np.zeros(b, np.int32)), 1300], 0)
    for b, w in ((48, 1), (48, 4), (300, 8))]


# Unsigned dtypes (test/Interpreter/unsigned.tl): uint8 and uint32 buffers,
# a uint32 scalar, unsigned atomics.
_b = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
CASES += [
    ("unsigned ops", "test/Interpreter/unsigned.tl", "1",
     ["--kernel", "unsigned_ops", "-D", "N=64"],
     [("a", rng.integers(0, 256, 64).astype(np.uint8)), ("b", _b),
      ("w", rng.integers(-2**31, 2**31, 64).astype(np.int32)),
      ("out", np.zeros(16 * 64 + 7, np.uint32)), 3000000000], 0),
    ("unsigned atomics", "test/Interpreter/unsigned.tl", "2",
     ["--kernel", "unsigned_atomics", "-D", "N=64"],
     [("b", _b), ("m", np.array([0, 2**32 - 1], np.uint32))], 0),
]


# fp8 conversions and dots (test/Interpreter/fp8.tl; sm_89 and newer).
sys.path.insert(0, os.path.join(ROOT, "test", "Interpreter", "Inputs"))
import fp8 as _fp8  # noqa: E402

_x = (rng.standard_normal(256) * 4).astype(np.float32)
_x[:8] = [0.0, -0.0, 448.0, 464.0, 1e6, 57344.0, 61440.0, 2.0 ** -17]
_small = lambda shape, fmt: _fp8.encode(rng.integers(-4, 5, shape).astype(np.float64), fmt)
CASES += [
    ("fp8 convert", "test/Interpreter/fp8.tl", "1",
     ["--kernel", "fp8_convert", "--signature",
      "*fp32, *fp8e5, *fp8e4nv, *fp8e4nv, *fp32, 256"],
     [("x", _x)] + [(n, np.zeros(256, np.uint8)) for n in ("e5", "e4", "h4")]
     + [("back", np.zeros(512, np.float32))], 0),
    ("fp8 dot", "test/Interpreter/fp8.tl", "1",
     ["--kernel", "fp8_dot", "--signature",
      "*fp8e4nv, *fp8e4nv, *fp8e5, *fp8e5, *fp32, 32, 32, 64"],
     [("a", _small((32, 64), "e4m3")), ("b", _small((64, 32), "e4m3")),
      ("c", _small((32, 64), "e5m2")), ("d", _small((64, 32), "e5m2")),
      ("acc", np.zeros(2 * 32 * 32, np.float32))], 0),
]

def run(tile_run, backend, case, workdir):
    name, tl, grid, options, inputs, _ = case
    out = os.path.join(workdir, backend)
    os.makedirs(out, exist_ok=True)
    args = []
    for value in inputs:
        if isinstance(value, tuple):
            path = os.path.join(workdir, value[0] + ".npy")
            np.save(path, value[1])
            args.append(path)
        else:
            args.append(str(value))
    cmd = [tile_run, os.path.join(ROOT, tl), "--grid", grid, "--backend",
           backend, "-o", out] + options + args
    subprocess.run(cmd, check=True)
    return {f: np.load(os.path.join(out, f)) for f in sorted(os.listdir(out))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-run", required=True)
    args = parser.parse_args()
    ok = True
    for case in CASES:
        with tempfile.TemporaryDirectory() as workdir:
            interp = run(args.tile_run, "interp", case, workdir)
            cuda = run(args.tile_run, "cuda", case, workdir)
        for name in interp:
            a, b = interp[name], cuda[name]
            if a.dtype == np.uint16:  # bf16 bits
                a = (a.astype(np.uint32) << 16).view(np.float32)
                b = (b.astype(np.uint32) << 16).view(np.float32)
            if case[5] == 0:
                same = np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
                detail = "identical" if same else "DIFFER"
            else:
                diff = np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)),
                              initial=0)
                same = np.allclose(a, b, rtol=case[5], atol=case[5])
                detail = f"max |diff| {diff:.3g}" + ("" if same else "  DIFFER")
            print(f"{case[0]:20s} {name:16s} {a.shape!s:14s} {detail}")
            ok &= bool(same)
    print("interpreter and GPU agree" if ok else "INTERPRETER AND GPU DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
