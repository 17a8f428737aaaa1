#!/usr/bin/env python3
"""Matmul on the shapes LLM layers run: tilec against Triton on the same .tl
files and against cuBLAS (torch.nn.functional.linear), issue 39's table.

Llama-3 8B and 70B linear layers (qkv, o, gate_up, down) at M = 1 to 8192,
x @ W.T with W stored (N, K) as nn.Linear keeps it, bf16 and fp16; ragged
shapes with a row-major B (1000 x 3000 x 5000, 4097^3); fp32 (tf32) at
4096^3 and two ragged shapes. Each row: tilec's best and Triton's best over
the same sweep of the tutorial-style grouped kernel
(bench/kernels/grouped_matmul.tl) and the split-K form a user would also try
(dsl-examples/splitk_matmul.tl, atomics into an fp32 C); tilec's cluster
split or stream-K as the JIT decides it (tile::chooseClusterSplitK, then
tile::chooseStreamK, for the grid and the GPU, "(model)"), or over the
splits --splits names (1 to 8, stream-k); cuBLAS in the same run.
Rows with M <= 64 also give the weights' streaming rate in GB/s against a
device-to-device copy of the same bytes (a copy moves each byte twice).

    python3 bench/llm_gemm.py --tilec build/bin/tilec --arch sm_90a
        [--json out.json] [--svg DIR] [--quick] [--models 8B,70B] [--layers qkv,o]
        [--m 1,128] [--dtypes bf16,fp16] [--no-ragged] [--no-llama]
        [--splits 1,2,stream-k] [--configs 16x64x256x4x4,...]
"""
import argparse
import json
import os
import sys
import tempfile
from functools import lru_cache, partial

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare_triton import TilecKernel, jit_split, load_tl  # noqa: E402
from harness import specialize  # noqa: E402
from matmul import GROUPED, TORCH  # noqa: E402
from triton.testing import do_bench  # noqa: E402

SPLITK = os.path.join(os.path.dirname(HERE), "dsl-examples", "splitk_matmul.tl")

# (N, K) of each layer's weight: hidden 4096 / 8192, 32 / 64 query heads
# and 8 key-value heads of 128, MLP 14336 / 28672.
LLAMA3 = {
    "8B": {"qkv": (6144, 4096), "o": (4096, 4096), "gate_up": (28672, 4096),
           "down": (4096, 14336)},
    "70B": {"qkv": (10240, 8192), "o": (8192, 8192), "gate_up": (57344, 8192),
            "down": (8192, 28672)},
}
MS = (1, 16, 64, 128, 512, 1000, 4096, 8192)
# BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages: wgmma's 64 rows at
# small M, deeper K blocks where the weights stream; rings of 5 to 8
# where a program's tile is all its SM does (M = 128 to 1000: 128 x 128 x
# 64 at 512 x 4096 x 4096 went 496, 568, 581 TFLOP/s at 4, 5, 6 stages on
# 8 warps; 64 x 128 x 64 at 128 x 6144 x 4096 259 at 8 stages, H200).
SWEEP = [(64, 64, 128, 4, 4), (64, 64, 128, 4, 6), (64, 128, 64, 4, 4),
         (64, 128, 64, 4, 8), (64, 256, 64, 4, 3), (128, 128, 64, 4, 5),
         (128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 8, 6)]
# Where M <= 64 also 16 rows, which waste no tensor-core work or shared
# memory on absent rows (tilec: wgmma with the operands swapped, the
# weights as its 64 rows; Triton: mma.sync).
SMALL_M_SWEEP = [(16, 64, 128, 4, 4), (16, 128, 128, 4, 4), (16, 64, 256, 4, 4),
                 (16, 256, 128, 8, 3)]
# fp32 (tf32): K blocks of the same bytes or fewer, with the stages they
# free (the H200's best at 4096^3: 256 x 128 x 16, 6 stages).
FP32_SWEEP = [(128, 128, 32, 4, 3), (256, 128, 32, 8, 3), (256, 128, 32, 8, 4),
              (256, 128, 16, 8, 6), (256, 128, 16, 8, 8), (128, 128, 64, 8, 3)]
QUICK = [(64, 128, 64, 4, 4), (128, 256, 64, 8, 3)]
# The split-K form: BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, SPLIT_K.
SPLIT_SWEEP = [(64, 64, 128, 4, 4, 4), (64, 128, 64, 4, 4, 8), (64, 64, 64, 4, 4, 16)]
TOLERANCE = {"fp16": 2e-2, "bf16": 4e-2, "fp32": 2e-2}


def median_ms(fn):
    """Shorter than bench/matmul.py's: this table has hundreds of rows."""
    return do_bench(fn, warmup=10, rep=60, return_mode="median")


def relative_error(out, ref):
    return float((out.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30))


def timed(run, out, ref, dtype):
    """The median ms of `run` once its output matches `ref`; raises where
    it does not."""
    out.fill_(float("nan"))
    run()
    err = relative_error(out, ref)
    if not err <= TOLERANCE[dtype]:
        raise RuntimeError(f"relative error {err:.3g}")
    return median_ms(run)


def attempt(row, key, config, fn):
    """Keeps in row[key] the fastest of the configurations tried: fn()'s
    milliseconds and `config` (every one in row["tried"]); an error is
    noted and the sweep goes on."""
    try:
        ms = fn()
        row.setdefault("tried", []).append({"who": key, "config": config, "ms": ms})
        if key not in row or ms < row[key]["ms"]:
            row[key] = {"ms": ms, "config": config}
    except Exception as error:  # report, keep sweeping
        row.setdefault("errors", []).append(f"{key} {config}: {str(error)[:160]}")


def zeroing(launch, c32):
    """A split-K launch: its atomics add into a zeroed C."""
    return lambda: (c32.zero_(), launch())


def case(args, modules, workdir, dtype, m, n, k, weight_nk):
    """One row: a (M, K) times B (K, N), B a view of W (N, K) where
    `weight_nk` (nn.Linear's layout), else row-major (K, N)."""
    a = torch.randn(m, k, device="cuda", dtype=TORCH[dtype])
    if weight_nk:
        w = torch.randn(n, k, device="cuda", dtype=TORCH[dtype]) / k ** 0.5
        b, b_strides = w.t(), (1, k)
        cublas = lambda: F.linear(a, w)
    else:
        w = torch.randn(k, n, device="cuda", dtype=TORCH[dtype]) / k ** 0.5
        b, b_strides = w, (n, 1)
        cublas = lambda: torch.matmul(a, w)
    ref = cublas()
    c = torch.empty(m, n, device="cuda", dtype=TORCH[dtype])
    c32 = torch.empty(m, n, device="cuda", dtype=torch.float32)
    strides = (k, 1) + b_strides + (n, 1)
    specs, ints = specialize((m, n, k) + strides, a.element_size())
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    cc = 10 * torch.cuda.get_device_capability()[0] + torch.cuda.get_device_capability()[1]
    row = {"m": m, "n": n, "k": k, "dtype": dtype}
    grouped_tl, splitk_tl = modules
    sweep = args.configs or (QUICK if args.quick else FP32_SWEEP if dtype == "fp32" else
                             SWEEP + (SMALL_M_SWEEP if m <= 64 else []))
    for bm, bn, bk, warps, stages in sweep:
        grid = (-(-m // bm) * -(-n // bn),)
        signature = ", ".join([f"*{dtype}:16"] * 3 + specs + [str(bm), str(bn), str(bk), "8"])
        # Each split compiled once: the decision's kernel (one CTA a
        # program) is also the one timed where the model keeps it.
        kernel_for = lru_cache(maxsize=None)(lambda split: TilecKernel(
            args.tilec, "grouped_matmul", signature, workdir, warps,
            ["--num-stages", str(stages), "--arch", args.arch] +
            (["--cluster-split-k", "1", "--stream-k"] if split == "stream-k" else
             ["--cluster-split-k", str(split)]), path=GROUPED))
        try:
            model = jit_split(kernel_for, grid[0], sms, cc)
        except Exception as error:  # as the JIT would fail: noted, no split
            row.setdefault("errors", []).append(
                f"tilec {[bm, bn, bk, warps, stages]} split decision: {str(error)[:160]}")
            model = 1
        for split in args.splits or (model,):
            name = "stream-K" if split == "stream-k" else f"cluster {split}"
            config = [bm, bn, bk, warps, stages,
                      name + (" (model)" if split == model else "")]
            attempt(row, "tilec", config, lambda: timed(
                kernel_for(split).bind(grid, a, b, c, *ints), c, ref, dtype))
        attempt(row, "triton", [bm, bn, bk, warps, stages], lambda: timed(partial(
            grouped_tl.grouped_matmul_kernel[grid], a, b, c, m, n, k, *strides,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
            num_stages=stages), c, ref, dtype))
    if m <= 512 and dtype != "fp32":
        for bm, bn, bk, warps, stages, split in (SPLIT_SWEEP[:1] if args.quick else SPLIT_SWEEP):
            grid = (-(-m // bm), -(-n // bn), split)
            signature = ", ".join([f"*{dtype}:16", f"*{dtype}:16", "*fp32:16"] + specs +
                                  [str(bm), str(bn), str(bk), str(split)])
            config = ["split-K", bm, bn, bk, warps, stages, split]
            attempt(row, "tilec", config, lambda: timed(zeroing(TilecKernel(
                args.tilec, "splitk_matmul", signature, workdir, warps,
                ["--kernel", "splitk_kernel", "--num-stages", str(stages),
                 "--arch", args.arch], path=SPLITK).bind(grid, a, b, c32, *ints), c32),
                c32, ref, dtype))
            attempt(row, "triton", config, lambda: timed(zeroing(partial(
                splitk_tl.splitk_kernel[grid], a, b, c32, m, n, k, *strides,
                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, SPLIT_K=split, num_warps=warps,
                num_stages=stages), c32), c32, ref, dtype))
    row["cublas"] = {"ms": median_ms(cublas)}
    flop = 2.0 * m * n * k
    for key in ("tilec", "triton", "cublas"):
        if key in row:
            row[key]["tflops"] = flop / row[key]["ms"] / 1e9
    if m <= 64:
        weights = w.numel() * w.element_size()
        copy = torch.empty_like(w)
        copy_gbs = 2 * weights / median_ms(lambda: copy.copy_(w)) / 1e6
        row["copy_gbs"] = copy_gbs
        for key in ("tilec", "triton", "cublas"):
            if key in row:
                row[key]["gbs"] = weights / row[key]["ms"] / 1e6
    return row


def cell(row, key, unit="tflops"):
    return f"{row[key][unit]:.1f}" if key in row else "error"


def ratio(row, a, b):
    """How many times faster `a` ran than `b`."""
    return f"{row[b]['ms'] / row[a]['ms']:.2f}" if a in row and b in row else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--json")
    parser.add_argument("--svg", help="draw the speedups as SVG in this directory "
                                      "(bench/plots.py, matplotlib)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--models", default="8B,70B")
    parser.add_argument("--layers", default="qkv,o,gate_up,down")
    parser.add_argument("--m", default=",".join(map(str, MS)))
    parser.add_argument("--dtypes", default="bf16,fp16")
    parser.add_argument("--no-ragged", action="store_true")
    parser.add_argument("--no-llama", action="store_true")
    parser.add_argument("--splits", type=lambda s: [x if x == "stream-k" else int(x)
                                                    for x in s.split(",")],
                        help="tilec's splits to sweep: cluster CTAs, or stream-k "
                             "(default: the model's)")
    parser.add_argument("--configs", type=lambda s: [tuple(map(int, c.split("x")))
                                                     for c in s.split(",")],
                        help="the grouped kernel's configurations, BMxBNxBKxWARPSxSTAGES "
                             "comma-separated (default: the sweep above)")
    args = parser.parse_args()
    torch.manual_seed(0)
    # cuBLAS's fp32 rows on the tensor cores, as tl.dot's default (tf32).
    torch.backends.cuda.matmul.allow_tf32 = True
    modules = (load_tl("grouped_matmul", GROUPED), load_tl("splitk_matmul", SPLITK))
    cases = []
    if not args.no_llama:
        for model in args.models.split(","):
            for layer in args.layers.split(","):
                n, k = LLAMA3[model][layer]
                for m in map(int, args.m.split(",")):
                    for dtype in args.dtypes.split(","):
                        cases.append((f"{model} {layer}", dtype, m, n, k, True))
    if not args.no_ragged:
        for dtype in args.dtypes.split(","):
            cases += [("ragged", dtype, 1000, 3000, 5000, False),
                      ("ragged", dtype, 4097, 4097, 4097, False)]
        cases += [("tf32", "fp32", 4096, 4096, 4096, False),
                  ("tf32 ragged", "fp32", 1000, 3000, 5000, False),
                  ("tf32 ragged", "fp32", 4097, 4097, 4097, False)]
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name, dtype, m, n, k, weight_nk in cases:
            row = case(args, modules, workdir, dtype, m, n, k, weight_nk)
            row["name"] = name
            rows.append(row)
            print(f"{name} {dtype} M={m} N={n} K={k}: tilec {cell(row, 'tilec')} "
                  f"{row.get('tilec', {}).get('config', '')}  triton {cell(row, 'triton')}  "
                  f"cuBLAS {cell(row, 'cublas')} TFLOP/s", flush=True)
    print()
    print("| layer | dtype | M | N | K | tilec TFLOP/s (config) | Triton | cuBLAS "
          "| tilec/Triton | tilec/cuBLAS | GB/s tilec / copy |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    logs = []
    for r in rows:
        bandwidth = (f"{r['tilec']['gbs']:.0f} / {r['copy_gbs']:.0f} "
                     f"({r['tilec']['gbs'] / r['copy_gbs']:.2f})"
                     if "copy_gbs" in r and "tilec" in r else "")
        print(f"| {r['name']} | {r['dtype']} | {r['m']} | {r['n']} | {r['k']} "
              f"| {cell(r, 'tilec')} {r.get('tilec', {}).get('config', '')} "
              f"| {cell(r, 'triton')} | {cell(r, 'cublas')} | {ratio(r, 'tilec', 'triton')} "
              f"| {ratio(r, 'tilec', 'cublas')} | {bandwidth} |")
        logs.extend(r.get("errors", []))
    both = [r for r in rows if "tilec" in r]
    if both:
        import math
        geo = lambda key: math.exp(sum(math.log(r[key]["ms"] / r["tilec"]["ms"])
                                       for r in both if key in r) / max(1, sum(key in r for r in both)))
        print(f"\ngeometric mean over {len(both)} rows: tilec/Triton {geo('triton'):.2f}, "
              f"tilec/cuBLAS {geo('cublas'):.2f}")
    if logs:
        print(f"\n{len(logs)} configurations failed (first 10):")
        for line in logs[:10]:
            print("  " + line)
    result = {"device": torch.cuda.get_device_name(0), "arch": args.arch, "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.svg:
        import plots
        for path in plots.draw(result, args.svg):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
