#!/usr/bin/env python3
"""Differential test of tl.dot: the same kernel (bench/differential/dot.tl)
on tilec's interpreter and on the GPU (both through tile-run), over odd
shapes, block sizes from 3 x 3 to 128 x 128, 3-D (batched) dots inside the
tile as well as batches over programs, every dtype and precision, with
64 sentinels after every buffer; where Triton can run the configuration
(blocks of 16 or more), real Triton on the same file too.

fp8 (e4m3, e5m2) runs on the tensor-core blocks only, with B also given
K-major. Expected agreement: integers exactly; floats within the rounding of their
sums (both sides round the inputs alike: tf32 by cvt.rna, f16/bf16 exact
products), bounded per element by K * 2^-22 * sum_k |a_ik b_kj| (one f16 ulp
of the result more for f16 outputs; with --arch sm_90a, tf32 inputs
truncated by wgmma as below); every float also against a float64
reference within its dtype's class. Against Triton, what it does otherwise
is allowed for: tf32 inputs rounded another way, and fp16 accumulators
rounded after every instruction (tilec sums in fp32 and rounds once).
fp8 sums are allowed wgmma's shorter fp8 accumulator (see
accumulation_bound).

    python3 bench/dot_differential.py --tile-run build/bin/tile-run [--triton] [--arch sm_90a [--specialize]]
        [--only 'fp32->fp32 tf32'] [--sanitize racecheck] [--cluster-split-k 4|stream-k]
"""
import argparse
import importlib.machinery
import importlib.util
import itertools
import os
import subprocess
import sys
import tempfile

import numpy as np

import harness

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "bench", "differential", "dot.tl")
SENTINELS = 64

# (input dtype, output dtype, precision)
DTYPES = [("fp16", "fp32", "tf32"), ("fp16", "fp16", "tf32"),
          ("bf16", "fp32", "tf32"), ("fp32", "fp32", "tf32"),
          ("fp32", "fp32", "tf32x3"), ("fp32", "fp32", "ieee"),
          ("i8", "i32", "tf32"), ("fp64", "fp64", "ieee")]
SHAPES = [(1, 1, 1), (3, 3, 3), (17, 17, 17), (100, 3, 17), (3, 100, 127),
          (127, 127, 127), (1000, 17, 100), (17, 1000, 3), (100, 127, 1000),
          (1, 1000, 17), (3, 17, 1000), (127, 1, 100),
          # Rows of 16 elements' multiples (with --specialize, the copy
          # engine's boxes), ragged against the blocks.
          (112, 48, 208), (144, 144, 1008),
          # Rows whose strides divide by 2, 4 or 8 and no more (the JIT's
          # i32:2 to i32:8: vectors, and bulk copies where 16 bytes allow).
          (50, 18, 74), (60, 40, 200), (24, 72, 1000)]
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps)
BLOCKS = [(16, 16, 16, 4), (32, 32, 32, 4), (64, 64, 32, 4), (128, 128, 32, 8),
          (128, 64, 64, 4), (3, 3, 3, 1), (16, 8, 16, 1), (64, 128, 16, 8),
          (32, 16, 64, 2), (128, 32, 16, 4)]
# Few rows, many columns: the shapes of a decode step against a layer's
# weights.
SMALL_M_BLOCKS = [(16, 64, 64, 4), (32, 128, 32, 4), (16, 128, 64, 8), (32, 64, 128, 4)]
# fp8 on the tensor cores (mma.sync from sm_89, wgmma with sm_90a), B as it
# is stored (N contiguous) and K-major ("bT": stride_bk 1), as fp8 matmuls
# usually take it; blocks the tensor cores take (no FMA fallback for fp8).
FP8_DTYPES = [("fp8e4nv", "fp32", "tf32"), ("fp8e5", "fp32", "tf32")]
FP8_SHAPES = [(17, 17, 17), (127, 127, 127), (100, 127, 1000), (1000, 17, 100)]
FP8_BLOCKS = [(64, 64, 64, 4), (128, 128, 64, 8), (128, 64, 128, 4), (64, 128, 32, 4)]
NP = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64,
      "i8": np.int8, "i32": np.int32, "bf16": np.uint16}


def bf16_bits(x):
    """float32 -> bf16 bits (round to nearest even), as uint16."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def fp8_float64(bits, dtype):
    """fp8 bits (uint8) -> float64: e4m3 (bias 7, no infinities) or e5m2
    (bias 15)."""
    man_bits, bias = (3, 7) if dtype == "fp8e4nv" else (2, 15)
    bits = bits.astype(np.int64)
    exp = (bits >> man_bits) & ((1 << (7 - man_bits)) - 1)
    man = (bits & ((1 << man_bits) - 1)) / float(1 << man_bits)
    value = np.where(exp == 0, man * 2.0 ** (1 - bias), (1 + man) * 2.0 ** (exp - bias))
    return np.where(bits & 0x80, -value, value)


def fp8_bits(rng, size, dtype):
    """Random finite fp8 values, as bits."""
    bits = rng.integers(0, 256, size).astype(np.uint8)
    bad = (bits & 0x7F) == 0x7F if dtype == "fp8e4nv" else (bits & 0x7C) == 0x7C
    return np.where(bad, bits & 0xF0, bits).astype(np.uint8)


def as_float64(x, dtype):
    if dtype.startswith("fp8"):
        return fp8_float64(x, dtype)
    if dtype == "bf16":
        return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return x.astype(np.float64)


def cases(rng):
    block_cycle = itertools.cycle(range(len(BLOCKS)))
    for shape in SHAPES:
        for dtypes in DTYPES:
            for _ in range(2):
                yield shape, 1, BLOCKS[next(block_cycle)], dtypes
    for dtypes in DTYPES:  # batched, one batch per program
        yield (17, 9, 33), 3, BLOCKS[next(block_cycle)], dtypes
    # Batched inside the tile (3-D dots), BLOCK_Z in front of the block:
    # more batches than warps (8 of them, 5 real) and fewer.
    for dtypes in DTYPES:
        yield (17, 9, 33), 5, (8, 16, 16, 16, 4), dtypes
        yield (20, 24, 40), 3, (2, 32, 16, 16, 4), dtypes
    # 256-row tiles on two warpgroups over shapes with aligned rows: with
    # --specialize on sm_90a, the copy engine fills their buffers from a
    # producer warpgroup of its own (warp specialization).
    for shape in ((112, 48, 208), (144, 144, 1008), (272, 144, 1008)):
        for dtypes in DTYPES[:4]:
            yield shape, 1, (256, 128, 64, 8), dtypes
    # Tiles of 16 or 32 rows against 64 columns or more: on sm_90a, wgmma
    # with its operands swapped (B's columns fill the instruction's 64 rows).
    for i, shape in enumerate(((1, 1000, 17), (17, 127, 1000), (3, 100, 127), (24, 72, 1000))):
        for j, dtypes in enumerate(DTYPES[:4]):
            yield shape, 1, SMALL_M_BLOCKS[(i + j) % len(SMALL_M_BLOCKS)], dtypes
    for i, shape in enumerate(FP8_SHAPES):
        for j, (dtypes, b_layout) in enumerate(itertools.product(FP8_DTYPES, ((), ("bT",)))):
            yield shape, 1, FP8_BLOCKS[(i + j) % len(FP8_BLOCKS)], dtypes + b_layout
            if i < 2:
                yield shape, 1, SMALL_M_BLOCKS[(i + j) % len(SMALL_M_BLOCKS)], dtypes + b_layout


def inputs(rng, shape, batch, dtypes):
    m, n, k = shape
    a_t, c_t = dtypes[0], dtypes[1]
    if a_t.startswith("fp8"):
        a = fp8_bits(rng, (batch, m, k), a_t)
        b = fp8_bits(rng, (batch, k, n), a_t)
    elif a_t == "i8":
        a = rng.integers(-128, 128, (batch, m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (batch, k, n)).astype(np.int8)
    else:
        a = rng.standard_normal((batch, m, k))
        b = rng.standard_normal((batch, k, n))
        if a_t == "bf16":
            a, b = bf16_bits(a), bf16_bits(b)
        else:
            a, b = a.astype(NP[a_t]), b.astype(NP[a_t])
    return a, b


def with_sentinels(x, value):
    flat = x.ravel()
    return np.concatenate([flat, np.full(SENTINELS, value, flat.dtype)])


def split_block(block):
    """(BLOCK_Z or None, BLOCK_M, BLOCK_N, BLOCK_K, warps): a block of 5 is
    the batched kernel's, with BLOCK_Z first."""
    return (None,) + tuple(block) if len(block) == 4 else tuple(block)


def tile_run(tile_run, backend, workdir, shape, batch, block, dtypes, a, b,
             arch="sm_90", specialize=False, sanitize=None, cluster_split=0):
    m, n, k = shape
    bz, bm, bn, bk, warps = split_block(block)
    a_t, c_t, precision = dtypes[:3]
    k_major_b = "bT" in dtypes
    sentinel = {"i32": 0x5EED, "fp16": 7.0, "fp32": 7.5, "fp64": 7.25}[c_t]
    if k_major_b:
        b = b.transpose(0, 2, 1).copy()
    paths = []
    for name, arr in (("a", with_sentinels(a, a.ravel()[0])),
                      ("b", with_sentinels(b, b.ravel()[0])),
                      ("c", with_sentinels(np.full((batch, m, n), sentinel, NP[c_t]),
                                           sentinel))):
        path = os.path.join(workdir, f"{name}.npy")
        np.save(path, arr)
        paths.append(path)
    out = os.path.join(workdir, backend)
    b_strides = (k * n, 1, k) if k_major_b else (k * n, n, 1)
    ints = (m, n, k, m * k, k, 1) + b_strides + (m * n, n, 1)
    if bz is None:
        grid = f"{-(-m // bm)},{-(-n // bn)},{batch}"
        kernel, blocks = "dot_kernel", f"{bm}, {bn}, {bk}"
    else:
        grid = f"{-(-m // bm)},{-(-n // bn)},{-(-batch // bz)}"
        kernel, blocks = "batched_dot_kernel", f"{bz}, {bm}, {bn}, {bk}"
        ints = (batch,) + ints
    if specialize:
        entries, ints = harness.specialize(
            ints, min(harness.ELEMENT_BYTES[t] for t in (a_t, c_t)))
        pointers = [f"*{t}:16" for t in (a_t, a_t, c_t)]
    else:
        entries, pointers = ["i32"] * len(ints), [f"*{t}" for t in (a_t, a_t, c_t)]
    signature = ", ".join(pointers + entries) + f", {blocks}, '{precision}'"
    cmd = [tile_run, KERNEL, "--kernel", kernel, "--grid", grid, "--backend",
           backend, "-o", out, "--num-warps", str(warps), "--arch", arch, "--signature",
           signature] + (["--cluster-split-k", "1", "--stream-k"] if cluster_split == "stream-k"
                         else ["--cluster-split-k", str(cluster_split)]) + \
        paths + [str(v) for v in ints]
    if sanitize and backend == "cuda":
        cmd = ["compute-sanitizer", "--tool", sanitize, "--error-exitcode", "3"] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    c = np.load(os.path.join(out, "c_ptr.npy"))
    return c[:-SENTINELS].reshape(batch, m, n), c[-SENTINELS:], sentinel


def accumulation_bound(k, dtypes):
    """Hopper's fp8 wgmma sums with about 14 bits of mantissa, products
    aligned to the largest (Triton leaves it so on sm_90:
    max_num_imprecise_acc_default 2^30): per 32-element K step, up to 2^-9
    of the magnitude. Layout or data errors are of the order of 1."""
    return (k // 32 + 2) * 2.0 ** -9 if dtypes[0].startswith("fp8") else 0.0


def reference(a, b, dtypes):
    a_t = dtypes[0]
    a64, b64 = as_float64(a, a_t), as_float64(b, a_t)
    return a64 @ b64, np.abs(a64) @ np.abs(b64)


def close(x, y, magnitude, k, dtypes, inputs_alike=True):
    """|x - y| within the rounding both sides may do. With `inputs_alike`
    false (Triton), tf32 inputs may be rounded another way (truncated by
    the tensor cores, or rounded to nearest even), up to one tf32 ulp each."""
    c_t = dtypes[1]
    if c_t == "i32":
        return np.array_equal(x, y)
    x, y = x.astype(np.float64), y.astype(np.float64)
    bound = (4 * max(k, 16) * 2.0 ** -22 + accumulation_bound(k, dtypes)) * magnitude + 1e-300
    if not inputs_alike and dtypes[2] == "tf32" and dtypes[0] == "fp32":
        bound += 2 * 2.0 ** -10 * magnitude
    if not inputs_alike and c_t == "fp16":
        # Triton accumulates fp16 in fp16, rounding after every k16 step;
        # tilec (like the interpreter) sums a dot in fp32 and rounds once.
        bound += (k // 16 + 2) * 2.0 ** -11 * magnitude
    if c_t == "fp16":
        bound += 2.0 ** -10 * np.abs(y) + 2.0 ** -24
    return bool(np.all(np.abs(x - y) <= bound))


def reference_ok(x, ref, magnitude, k, dtypes):
    """Against float64: what each dtype class can promise."""
    a_t, c_t, precision = dtypes[:3]
    if c_t == "i32":
        return np.array_equal(x.astype(np.int64), (ref.astype(np.int64) + 2**31) % 2**32 - 2**31)
    rel = {"ieee": 2.0 ** -20, "tf32x3": 2.0 ** -18, "tf32": 2.0 ** -9}[precision]
    if a_t in ("fp16", "bf16"):
        rel = 2.0 ** -18
    if c_t == "fp16":
        rel += 2.0 ** -9
    if c_t == "fp64":
        rel = 2.0 ** -48
    if a_t.startswith("fp8"):
        rel = 2.0 ** -18 + accumulation_bound(k, dtypes)
    err = np.abs(x.astype(np.float64) - ref)
    return bool(np.all(err <= rel * (magnitude + np.abs(ref)) + 1e-300))


def load_triton_module():
    loader = importlib.machinery.SourceFileLoader("dot_tl", KERNEL)
    spec = importlib.util.spec_from_loader("dot_tl", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_triton(module, shape, batch, block, dtypes, a, b):
    import torch
    m, n, k = shape
    bz, bm, bn, bk, warps = split_block(block)
    tdt = {"fp16": torch.float16, "fp32": torch.float32, "fp64": torch.float64,
           "i8": torch.int8, "i32": torch.int32}
    if dtypes[0] == "bf16":
        ta = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).cuda()
        tb = torch.from_numpy(b.view(np.int16)).view(torch.bfloat16).cuda()
    else:
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    c = torch.zeros((batch, m, n), dtype=tdt[dtypes[1]], device="cuda")
    strides = (m * k, k, 1, k * n, n, 1, m * n, n, 1)
    blocks = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, PRECISION=dtypes[2],
                  num_warps=warps)
    if bz is None:
        grid = (-(-m // bm), -(-n // bn), batch)
        module.dot_kernel[grid](ta, tb, c, m, n, k, *strides, **blocks)
    else:
        grid = (-(-m // bm), -(-n // bn), -(-batch // bz))
        module.batched_dot_kernel[grid](ta, tb, c, batch, m, n, k, *strides,
                                        BLOCK_Z=bz, **blocks)
    return c.cpu().numpy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--triton", action="store_true",
                        help="also run real Triton where it can")
    parser.add_argument("--arch", default="sm_90",
                        help="tile-run's --arch for the GPU runs (sm_90a: wgmma)")
    parser.add_argument("--specialize", action="store_true",
                        help="integers specialized as tilec's JIT does (their "
                             "power-of-two divisors up to 16 bytes, equal to 1) and "
                             "buffers 16-byte aligned: with sm_90a, the copy engine "
                             "reads the aligned shapes' tiles")
    parser.add_argument("--cluster-split-k", type=lambda v: v if v == "stream-k" else int(v),
                        default=0, metavar="S",
                        help="the GPU runs' programs as clusters of S CTAs that "
                             "split the K loop (sm_90a), or stream-k: the kernel's "
                             "stream-K form; 0, the default: as tile-run's cost "
                             "model decides for the grid")
    parser.add_argument("--only", default="",
                        help="comma-separated parts of case labels to run (e.g. "
                             "'fp32->fp32 tf32'); all by default")
    parser.add_argument("--sanitize", metavar="TOOL",
                        help="run the GPU side under compute-sanitizer --tool TOOL "
                             "(a report fails the case)")
    args = parser.parse_args()
    rng = np.random.default_rng(8)
    triton_module = load_triton_module() if args.triton else None
    counts = {"cases": 0, "failures": 0, "triton": 0, "exact": 0}
    for shape, batch, block, dtypes in cases(rng):
        a, b = inputs(rng, shape, batch, dtypes)  # drawn for every case alike
        bz, bm, bn, bk, warps = split_block(block)
        label = (f"{'x'.join(map(str, shape))} batch {batch} blocks "
                 f"{'' if bz is None else f'{bz}x'}{bm}x{bn}x{bk} w{warps} "
                 f"{dtypes[0]}->{dtypes[1]} {' '.join(dtypes[2:])}")
        if args.only and not any(part in label for part in args.only.split(",")):
            continue
        with tempfile.TemporaryDirectory() as workdir:
            interp, interp_tail, sentinel = tile_run(
                args.tile_run, "interp", workdir, shape, batch, block, dtypes, a, b,
                specialize=args.specialize)
            gpu, gpu_tail, _ = tile_run(
                args.tile_run, "cuda", workdir, shape, batch, block, dtypes, a, b,
                args.arch, args.specialize, args.sanitize, args.cluster_split_k)
        ref, magnitude = reference(a, b, dtypes)
        problems = []
        if not np.all(gpu_tail == sentinel) or not np.all(interp_tail == sentinel):
            problems.append("sentinel overwritten")
        # wgmma reads tf32 operands from shared memory as they are, the low
        # mantissa bits ignored; the interpreter (and mma.sync) round them.
        alike = not (args.arch == "sm_90a" and dtypes[0] == "fp32" and dtypes[2] == "tf32")
        if not close(gpu, interp, magnitude, shape[2], dtypes, inputs_alike=alike):
            diff = np.max(np.abs(gpu.astype(np.float64) - interp.astype(np.float64)))
            problems.append(f"GPU vs interpreter, max |diff| {diff:.3g}")
        if not reference_ok(gpu, ref, magnitude, shape[2], dtypes):
            problems.append("GPU vs float64 reference")
        if not reference_ok(interp, ref, magnitude, shape[2], dtypes):
            problems.append("interpreter vs float64 reference")
        counts["exact"] += int(np.array_equal(gpu, interp))
        triton_note = ""
        if (triton_module and min(bm, bn, bk) >= 16 and dtypes[0] != "fp64"
                and not dtypes[0].startswith("fp8")):
            try:
                tri = run_triton(triton_module, shape, batch, block, dtypes, a, b)
                counts["triton"] += 1
                if not close(gpu, tri, magnitude, shape[2], dtypes,
                             inputs_alike=False):
                    problems.append("GPU vs Triton")
                triton_note = ", Triton agrees" if "GPU vs Triton" not in problems else ""
            except Exception as error:  # Triton refuses some configurations
                triton_note = f", Triton: {type(error).__name__}"
        counts["cases"] += 1
        counts["failures"] += int(bool(problems))
        status = "FAIL " + "; ".join(problems) if problems else "ok"
        print(f"{label:58s} {status}{triton_note}", flush=True)
    print(f"{counts['cases']} cases, {counts['failures']} failed; "
          f"{counts['exact']} bit-identical to the interpreter; "
          f"{counts['triton']} also run by Triton")
    return 1 if counts["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
