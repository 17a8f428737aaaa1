#!/usr/bin/env python3
"""Bandwidth of the dot product (2^26 fp32) and of row mean-normalization
(16384 x 4096 fp32): tilec, real Triton on the same .tl file, torch, and a
device-to-device copy, measured in one run. Prints a table and writes JSON.

    python3 bench/reductions.py --tilec build/bin/tilec [--json out.json]
"""
import argparse
import json
import os
import sys
import tempfile

import torch
import triton
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_triton import TilecKernel, load_tl  # noqa: E402


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def dot_product(tilec, workdir, rows):
    n = 1 << 26
    a = torch.rand(n, device="cuda") - 0.5
    b = torch.rand(n, device="cuda") - 0.5
    nbytes = 2 * 4 * n
    block = 2048
    programs = torch.cuda.get_device_properties(0).multi_processor_count * 8
    module = load_tl("dot_product")
    out_triton = torch.zeros(1, device="cuda")
    out_tilec = torch.zeros(1, device="cuda")
    kernel = TilecKernel(tilec, "dot_product",
                         f"*fp32:16, *fp32:16, *fp32:16, i32:16, {block}", workdir)
    run_triton = lambda: module.dot_product_kernel[(programs,)](
        a, b, out_triton, n, BLOCK=block)
    run_tilec = lambda: kernel((programs,), a, b, out_tilec, n)
    run_triton()
    run_tilec()
    torch.cuda.synchronize()
    expected = torch.dot(a.double(), b.double()).item()
    tol = 1e-5 * torch.dot(a.abs().double(), b.abs().double()).item()
    ok = abs(out_tilec.item() - expected) <= tol and \
        abs(out_triton.item() - expected) <= tol
    rows.append({
        "workload": "dot product 2^26 fp32",
        "tilec": gbps(nbytes, do_bench(run_tilec)),
        "triton": gbps(nbytes, do_bench(run_triton)),
        "torch": gbps(nbytes, do_bench(lambda: torch.dot(a, b))),
        "config": f"{programs} programs x BLOCK {block}, 4 warps",
        "correct": ok,
        "result": {"tilec": out_tilec.item(), "triton": out_triton.item(),
                   "double": expected}})


def normalize(tilec, workdir, rows):
    m, n = 16384, 4096
    x = torch.rand(m, n, device="cuda") + 0.5
    nbytes = 2 * 4 * m * n
    module = load_tl("normalize")
    best = None
    for warps in (4, 8, 16):
        out_tilec = torch.empty_like(x)
        out_triton = torch.empty_like(x)
        kernel = TilecKernel(tilec, "normalize",
                             f"*fp32:16, *fp32:16, i32:16, i32:16, {n}", workdir,
                             num_warps=warps)
        run_tilec = lambda: kernel((m,), x, out_tilec, n, n)
        run_triton = lambda: module.normalize_kernel[(m,)](
            x, out_triton, n, n, BLOCK=n, num_warps=warps)
        run_tilec()
        run_triton()
        torch.cuda.synchronize()
        reference = x / x.mean(dim=1, keepdim=True)
        ok = torch.allclose(out_tilec, reference, rtol=1e-5) and \
            torch.allclose(out_tilec, out_triton, rtol=1e-5)
        row = {"workload": "row mean-normalize 16384x4096 fp32",
               "tilec": gbps(nbytes, do_bench(run_tilec)),
               "triton": gbps(nbytes, do_bench(run_triton)),
               "config": f"one program per row, {warps} warps",
               "correct": ok}
        print(f"  normalize, {warps} warps: tilec {row['tilec']:.0f} GB/s, "
              f"triton {row['triton']:.0f} GB/s, correct {ok}", flush=True)
        if best is None or row["tilec"] > best["tilec"]:
            best = row
    best["torch"] = gbps(nbytes, do_bench(
        lambda: x / x.mean(dim=1, keepdim=True)))
    rows.append(best)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--json", default="reductions.json")
    args = parser.parse_args()
    src = torch.empty(1 << 28, device="cuda")
    dst = torch.empty_like(src)
    copy = gbps(2 * 4 * src.numel(), do_bench(lambda: dst.copy_(src)))
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(workdir, "triton"))
        dot_product(args.tilec, workdir, rows)
        normalize(args.tilec, workdir, rows)
    device = torch.cuda.get_device_name()
    print(f"\n{device}, triton {triton.__version__}, torch {torch.__version__}; "
          f"device copy {copy:.0f} GB/s (read + write)\n")
    print("| workload | tilec GB/s | % of copy | Triton GB/s | tilec/Triton | "
          "torch GB/s | correct |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['workload']} ({r['config']}) | {r['tilec']:.0f} | "
              f"{100 * r['tilec'] / copy:.0f}% | {r['triton']:.0f} | "
              f"{r['tilec'] / r['triton']:.2f}x | {r['torch']:.0f} | "
              f"{r['correct']} |")
    with open(args.json, "w") as f:
        json.dump({"device": device, "triton": triton.__version__,
                   "torch": torch.__version__, "copy_gbps": copy,
                   "rows": rows}, f, indent=2)
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
