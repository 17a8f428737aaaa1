#!/usr/bin/env python3
"""tl.dot on the GPU: tilec against real Triton on the same .tl files
(dsl-examples/matmul.tl and splitk_matmul.tl, bench/kernels/grouped_matmul.tl,
test/Triton/descriptor_matmul.tl)
and against cuBLAS
(torch.matmul), each figure the best over the same sweep of block sizes,
warps and stages, the median of do_bench runs. Outputs are checked against
torch before timing.

    python3 bench/matmul.py --tilec build/bin/tilec [--json out.json] [--quick]
                            [--only matmul,split-K ...]
"""
import argparse
import json
import os
import sys
import tempfile
from functools import partial

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_triton import TilecKernel, load_tl  # noqa: E402
from harness import specialize  # noqa: E402

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
# BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages
SWEEP = [(128, 128, 32, 4, 3), (128, 128, 64, 4, 3), (128, 256, 32, 8, 3),
         (256, 128, 32, 8, 3), (128, 128, 32, 8, 4), (64, 128, 32, 4, 4),
         (128, 64, 32, 4, 4), (64, 64, 32, 4, 4)]
QUICK = [(128, 128, 32, 4, 3), (128, 256, 32, 8, 3)]
# The configurations that lead at 4096^3 on either path, for the other shapes.
LEADERS = [(128, 256, 64, 8, 4), (128, 128, 32, 8, 4), (128, 256, 64, 8, 3),
           (128, 128, 64, 4, 3), (256, 128, 32, 8, 3)]
# fp8's K blocks of 128 bytes.
FP8_SWEEP = [(128, 256, 128, 8, 3), (128, 128, 128, 8, 3), (128, 256, 128, 8, 4)]
# Hopper's wgmma wants deeper K blocks and larger tiles: added with --arch sm_90a.
SWEEP_SM90A = [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3),
               (128, 128, 64, 8, 4), (128, 128, 64, 4, 4)]


def median_ms(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def tflops(m, n, k, ms, batch=1):
    return 2.0 * batch * m * n * k / ms / 1e9


def check(out, ref, dtype, what):
    tol = {"fp16": 2e-2, "bf16": 4e-2, "fp32": 2e-2, "ieee": 1e-4, "fp8": 2e-2}[dtype]
    err = (out.float() - ref.float()).norm() / ref.float().norm()
    if not err <= tol:
        raise SystemExit(f"{what}: relative error {err:.3g} above {tol}")
    return float(err)


def measure(row, side, make_run, c, ref, dtype, what, flop):
    """One side ("tilec" or "triton") of a sweep row: `make_run()` gives
    its launch, whose output `c` is checked against `ref` before timing;
    an error is reported in the row and the sweep goes on."""
    try:
        run = make_run()
        c.fill_(float("nan"))
        run()
        row[f"{side}_err"] = check(c, ref, dtype, f"{side} {what} {row['config']}")
        row[side] = flop / median_ms(run) / 1e9
    except Exception as error:  # report, keep sweeping
        row[f"{side}_error"] = str(error)[:200]


def report(row, what):
    print(f"  {what} {row['config']}: tilec {row.get('tilec', float('nan')):7.1f}  "
          f"triton {row.get('triton', float('nan')):7.1f} TFLOP/s", flush=True)


def blocked(args, tl_module, workdir, dtype, precision, shape, batch, sweep):
    m, n, k = shape
    fp8 = dtype == "fp8"
    in_dtype = TORCH["fp32" if dtype == "ieee" else "fp16" if fp8 else dtype]
    a = torch.randn(batch, m, k, device="cuda", dtype=in_dtype)
    b = torch.randn(batch, k, n, device="cuda", dtype=in_dtype)
    c = torch.empty(batch, m, n, device="cuda", dtype=in_dtype)
    strides = (m * k, k, 1, k * n, n, 1, m * n, n, 1)
    if fp8:
        # e4m3 inputs, B K-major (as fp8 matmuls take it), an fp16 output.
        a = a.to(torch.float8_e4m3fn)
        b = b.transpose(1, 2).contiguous().to(torch.float8_e4m3fn).transpose(1, 2)
        strides = (m * k, k, 1, k * n, 1, k, m * n, n, 1)
        ref = torch.matmul(a.half(), b.half())
    else:
        ref = torch.matmul(a.double() if dtype == "ieee" else a,
                           b.double() if dtype == "ieee" else b)
    ptr = {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "ieee": "fp32"}.get(dtype)
    ptrs = [f"*{ptr}:16"] * 3 if ptr else ["*fp8e4nv:16", "*fp8e4nv:16", "*fp16:16"]
    specs, runtime_ints = specialize((m, n, k) + strides, a.element_size())
    flop = 2.0 * batch * m * n * k
    rows = []
    for bm, bn, bk, warps, stages in sweep:
        grid = ((m + bm - 1) // bm, (n + bn - 1) // bn, batch)
        signature = ", ".join(ptrs + specs +
                              [str(bm), str(bn), str(bk), f"'{precision}'"])
        row = {"config": [bm, bn, bk, warps, stages]}

        def tilec_run():
            kernel = TilecKernel(args.tilec, "matmul", signature, workdir, warps,
                                 ["--num-stages", str(stages), "--arch", args.arch]
                                 + args.tilec_option)
            row["compile_ms"] = kernel.compile_ms
            return kernel.bind(grid, a, b, c, *runtime_ints)

        measure(row, "tilec", tilec_run, c, ref, dtype, dtype, flop)
        measure(row, "triton", lambda: partial(
            tl_module.matmul_kernel[grid], a, b, c, m, n, k, *strides, BLOCK_M=bm,
            BLOCK_N=bn, BLOCK_K=bk, PRECISION=precision, num_warps=warps,
            num_stages=stages), c, ref, dtype, dtype, flop)
        report(row, f"{dtype:5s} {shape} x{batch}")
        rows.append(row)
    if dtype == "ieee":
        cublas = None
    elif fp8:
        # cuBLAS's fp8 GEMM (B column-major, unit scales, fp16 out).
        one = torch.ones((), device="cuda")
        cublas = tflops(m, n, k, median_ms(lambda: torch._scaled_mm(
            a[0], b[0], one, one, out_dtype=torch.float16)), batch)
    else:
        cublas = tflops(m, n, k, median_ms(lambda: torch.matmul(a, b)), batch)
    return rows, cublas


GROUPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels",
                       "grouped_matmul.tl")


def grouped(args, tl_module, workdir, dtype, shape, sweep, group_m=8):
    """The tutorial-style kernel (bench/kernels/grouped_matmul.tl): a 1-D
    grid in L2-friendly groups of GROUP_M tile rows."""
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=TORCH[dtype])
    b = torch.randn(k, n, device="cuda", dtype=TORCH[dtype])
    c = torch.empty(m, n, device="cuda", dtype=TORCH[dtype])
    ref = torch.matmul(a, b)
    strides = (k, 1, n, 1, n, 1)
    specs, runtime_ints = specialize((m, n, k) + strides, a.element_size())
    flop = 2.0 * m * n * k
    rows = []
    for bm, bn, bk, warps, stages in sweep:
        grid = (-(-m // bm) * -(-n // bn),)
        row = {"config": [bm, bn, bk, warps, stages, group_m]}
        signature = ", ".join([f"*{dtype}:16"] * 3 + specs +
                              [str(bm), str(bn), str(bk), str(group_m)])
        measure(row, "tilec", lambda: TilecKernel(
            args.tilec, "grouped_matmul", signature, workdir, warps,
            ["--num-stages", str(stages), "--arch", args.arch] + args.tilec_option,
            path=GROUPED).bind(grid, a, b, c, *runtime_ints),
            c, ref, dtype, "grouped", flop)
        measure(row, "triton", lambda: partial(
            tl_module.grouped_matmul_kernel[grid], a, b, c, m, n, k, *strides,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group_m, num_warps=warps,
            num_stages=stages), c, ref, dtype, "grouped", flop)
        report(row, f"grouped {dtype} {shape}")
        rows.append(row)
    return rows, tflops(m, n, k, median_ms(lambda: torch.matmul(a, b)))


DESCRIPTOR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "test", "Triton", "descriptor_matmul.tl")


def descriptor(args, tl_module, workdir, dtype, shape, sweep):
    """The persistent-matmul tutorial's form (test/Triton/descriptor_matmul.tl):
    in-kernel tensor descriptors, one program per SM walking C's tiles. On
    sm_90a both compilers load its tiles with bulk tensor copies."""
    import triton
    # Triton builds in-kernel descriptors in memory its allocator gives.
    triton.set_allocator(lambda size, align, stream:
                         torch.empty(size, dtype=torch.int8, device="cuda"))
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=TORCH[dtype])
    b = torch.randn(k, n, device="cuda", dtype=TORCH[dtype])
    c = torch.empty(m, n, device="cuda", dtype=TORCH[dtype])
    ref = torch.matmul(a, b)
    specs, runtime_ints = specialize((m, n, k), a.element_size())
    programs = torch.cuda.get_device_properties(0).multi_processor_count
    flop = 2.0 * m * n * k
    rows = []
    for bm, bn, bk, warps, stages in sweep:
        row = {"config": [bm, bn, bk, warps, stages]}
        signature = ", ".join([f"*{dtype}:16"] * 3 + specs +
                              [str(bm), str(bn), str(bk), str(programs)])
        measure(row, "tilec", lambda: TilecKernel(
            args.tilec, "descriptor_matmul", signature, workdir, warps,
            ["--num-stages", str(stages), "--arch", args.arch] + args.tilec_option,
            path=DESCRIPTOR).bind((programs,), a, b, c, *runtime_ints),
            c, ref, dtype, "descriptor", flop)
        measure(row, "triton", lambda: partial(
            tl_module.descriptor_matmul[(programs,)], a, b, c, m, n, k,
            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, NUM_PROGRAMS=programs,
            num_warps=warps, num_stages=stages), c, ref, dtype, "descriptor", flop)
        report(row, f"descriptor {dtype} {shape}")
        rows.append(row)
    return rows, tflops(m, n, k, median_ms(lambda: torch.matmul(a, b)))


def splitk(args, tl_module, workdir, dtype, form, sweep):
    m, n, k = 256, 256, 65536
    a = torch.randn(m, k, device="cuda", dtype=TORCH[dtype])
    b = torch.randn(k, n, device="cuda", dtype=TORCH[dtype])
    c = torch.zeros(m, n, device="cuda", dtype=torch.float32)
    ref = torch.matmul(a.float(), b.float())
    strides = (k, 1, n, 1, n, 1)
    rows = []
    for bm, bn, bk, warps, stages, split in sweep:
        row = {"config": [bm, bn, bk, warps, stages, split]}
        grid = (m // bm, n // bn, k // bk if form == "slab" else split)
        name = "splitk_slab_kernel" if form == "slab" else "splitk_kernel"
        consts = [str(bm), str(bn), str(bk)] + ([] if form == "slab" else [str(split)])
        signature = ", ".join([f"*{dtype}:16", f"*{dtype}:16", "*fp32:16",
                               "i32:16", "i32:16", "i32:16", "i32:16", "1",
                               "i32:16", "1", "i32:16", "1"] + consts)
        try:
            kernel = TilecKernel(args.tilec, "splitk_matmul", signature, workdir,
                                 warps, ["--kernel", name, "--num-stages", str(stages),
                                         "--arch", args.arch] + args.tilec_option)
            launch = kernel.bind(grid, a, b, c, m, n, k, *strides[::2])
            run = lambda: (c.zero_(), launch())
            run()
            row["tilec_err"] = check(c, ref, "fp32", f"tilec split-K {row['config']}")
            row["tilec"] = tflops(m, n, k, median_ms(run))
        except Exception as error:
            row["tilec_error"] = str(error)[:200]
        try:
            fn = getattr(tl_module, name)
            extra = {} if form == "slab" else {"SPLIT_K": split}
            trun = lambda: (c.zero_(), fn[grid](a, b, c, m, n, k, *strides, BLOCK_M=bm,
                                                 BLOCK_N=bn, BLOCK_K=bk, num_warps=warps,
                                                 num_stages=stages, **extra))
            trun()
            row["triton_err"] = check(c, ref, "fp32", f"triton split-K {row['config']}")
            row["triton"] = tflops(m, n, k, median_ms(trun))
        except Exception as error:
            row["triton_error"] = str(error)[:200]
        print(f"  split-K {form} {dtype} {row['config']}: tilec "
              f"{row.get('tilec', float('nan')):7.1f}  triton "
              f"{row.get('triton', float('nan')):7.1f} TFLOP/s", flush=True)
        rows.append(row)
    cublas = tflops(m, n, k, median_ms(lambda: torch.matmul(a, b)))
    return rows, cublas


def best(rows, key):
    good = [r for r in rows if key in r]
    return max(good, key=lambda r: r[key]) if good else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--json")
    parser.add_argument("--svg", help="draw the speedups as SVG in this directory "
                                      "(bench/plots.py, matplotlib)")
    parser.add_argument("--arch", default="sm_90",
                        help="tilec's --arch (sm_90a: dots on wgmma)")
    parser.add_argument("--quick", action="store_true", help="two configurations")
    parser.add_argument("--tilec-option", action="append", default=[],
                        help="one more option of every tilec compile "
                             "(e.g. --tilec-option=--device-tensor-maps)")
    parser.add_argument("--only", default="",
                        help="comma-separated parts of workload names to run "
                             "(e.g. 'fp16 (4096,split-K slab'); all by default")
    args = parser.parse_args()
    torch.manual_seed(0)
    sweep = QUICK if args.quick else SWEEP + (SWEEP_SM90A if args.arch == "sm_90a" else [])
    matmul = load_tl("matmul")
    split_module = load_tl("splitk_matmul")
    results = []
    wanted = lambda name: not args.only or any(p in name for p in args.only.split(","))
    with tempfile.TemporaryDirectory() as workdir:
        for dtype, precision in (("fp16", "tf32"), ("bf16", "tf32"),
                                 ("fp32", "tf32"), ("ieee", "ieee"), ("fp8", "tf32")):
            shape = (4096, 4096, 4096) if dtype != "ieee" or not args.quick else (2048,) * 3
            name = f"matmul {dtype} {shape}"
            if not wanted(name):
                continue
            sw = sweep[:2] if dtype == "ieee" else sweep + FP8_SWEEP if dtype == "fp8" else sweep
            rows, cublas = blocked(args, matmul, workdir, dtype, precision, shape, 1, sw)
            results.append({"workload": name, "rows": rows, "cublas": cublas})
        # Larger and ragged shapes, and the tutorial-style grouped kernel,
        # over the configurations that lead at 4096^3.
        for dtype, shape in (("bf16", (8192, 8192, 8192)), ("fp16", (4097, 4097, 4097)),
                             ("fp16", (1000, 3000, 5000))):
            name = f"matmul {dtype} {shape}"
            if wanted(name):
                rows, cublas = blocked(args, matmul, workdir, dtype, "tf32", shape, 1,
                                       LEADERS[:2] if args.quick else LEADERS)
                results.append({"workload": name, "rows": rows, "cublas": cublas})
        for label, workload, module in (
                ("grouped", grouped, load_tl("grouped_matmul", GROUPED)),
                ("descriptor", descriptor, load_tl("descriptor_matmul", DESCRIPTOR))):
            for dtype in ("fp16", "bf16"):
                name = f"{label} {dtype} (4096, 4096, 4096)"
                if wanted(name):
                    rows, cublas = workload(args, module, workdir, dtype, (4096,) * 3,
                                            LEADERS[:2] if args.quick else LEADERS)
                    results.append({"workload": name, "rows": rows, "cublas": cublas})
        if wanted("batched spec 4x32x32x32 fp32"):
            rows, cublas = blocked(args, matmul, workdir, "fp32", "tf32", (32, 32, 32), 4,
                                   [(32, 32, 32, 4, 1), (16, 16, 16, 1, 1)])
            results.append({"workload": "batched spec 4x32x32x32 fp32", "rows": rows,
                            "cublas": cublas})
        slab = [(64, 64, 64, 4, 1, 0), (128, 128, 64, 4, 1, 0), (64, 64, 128, 4, 1, 0),
                (128, 64, 128, 4, 1, 0), (64, 64, 256, 4, 1, 0)]
        # Deeper rings over fewer splits keep more bytes in flight per SM
        # (both compilers gain: bench/README, split-K).
        looped = [(64, 64, 64, 4, 3, 32), (128, 128, 64, 4, 3, 64),
                  (64, 64, 64, 4, 3, 64), (128, 128, 32, 8, 3, 32),
                  (64, 64, 64, 4, 6, 16), (64, 64, 128, 4, 6, 8)]
        for dtype in ("fp16", "fp32"):
            for form, sw in (("slab", slab), ("loop", looped)):
                name = f"split-K {form} 256x256x65536 {dtype}"
                if not wanted(name):
                    continue
                rows, cublas = splitk(args, split_module, workdir, dtype, form,
                                      sw[:2] if args.quick else sw)
                results.append({"workload": name, "rows": rows, "cublas": cublas})
    print()
    print("| workload | tilec best (config) | Triton best (config) | tilec/Triton | cuBLAS | tilec/cuBLAS |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in results:
        t, x = best(r["rows"], "tilec"), best(r["rows"], "triton")
        tv = t["tilec"] if t else float("nan")
        xv = x["triton"] if x else float("nan")
        cb = r["cublas"] or float("nan")
        print(f"| {r['workload']} | {tv:.1f} {t['config'] if t else ''} | "
              f"{xv:.1f} {x['config'] if x else ''} | {tv / xv:.2f}x | {cb:.1f} | {tv / cb:.2f}x |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.svg:
        import plots
        for path in plots.draw(results, args.svg):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
