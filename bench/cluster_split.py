#!/usr/bin/env python3
"""Cluster split-K on the GPU (tilec --cluster-split-k): the grouped kernel
(bench/kernels/grouped_matmul.tl), x @ W.T with W stored (N, K), launched
from its .ptx and .json (bench/launch.py: cuLaunchKernelEx where the .json
has cluster_dims) with one CTA per program and with clusters of 2 to 4.

--check: results against float64 and the same bits over 100 launches, per
shape, tile configuration and split. Otherwise: TFLOP/s of each split
beside cuBLAS (F.linear), the split the JIT would launch starred
(compare_triton.jit_cluster_split: tile::chooseClusterSplitK with the
kernel's cuOccupancyMaxActiveClusters).

    python3 bench/cluster_split.py --tilec build/bin/tilec [--check]
"""
import argparse
import os
import sys
import tempfile
from functools import lru_cache

import torch
import torch.nn.functional as F
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_triton import TilecKernel, jit_cluster_split  # noqa: E402
from harness import specialize  # noqa: E402
from matmul import GROUPED  # noqa: E402

CONFIGS = [(64, 128, 64, 4, 4), (128, 128, 64, 8, 3)]
CHECK_SHAPES = [(64, 4096, 4096, torch.bfloat16), (128, 6144, 4096, torch.float16),
                (1, 4096, 14336, torch.bfloat16), (100, 3000, 5000, torch.float16),
                (64, 512, 64, torch.float16)]
SPEED_WEIGHTS = [(4096, 4096), (4096, 14336), (6144, 4096), (28672, 4096)]


def launcher(tilec, workdir, m, n, k, dtype, config, split, a, w, c):
    bm, bn, bk, warps, stages = config
    name = "bf16" if dtype == torch.bfloat16 else "fp16"
    specs, ints = specialize((m, n, k, k, 1, 1, k, n, 1), 2)
    grid = (-(-m // bm) * -(-n // bn),)
    signature = ", ".join([f"*{name}:16"] * 3 + specs + [str(bm), str(bn), str(bk), "8"])
    kernel = TilecKernel(tilec, "grouped_matmul", signature, workdir, warps,
                         ["--num-stages", str(stages), "--arch", "sm_90a",
                          "--cluster-split-k", str(split)], path=GROUPED)
    return kernel, kernel.bind(grid, a, w.t(), c, *ints), grid[0]


def check(args, workdir):
    bad = 0
    for m, n, k, dtype in CHECK_SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
        ref = a.double() @ w.double().t()
        for config in CONFIGS:
            for split in (1, 2, 3, 4):
                c = torch.empty(m, n, device="cuda", dtype=dtype)
                kernel, run, _ = launcher(args.tilec, workdir, m, n, k, dtype, config,
                                          split, a, w, c)
                c.fill_(float("nan"))
                run()
                err = float((c.double() - ref).norm() / ref.norm())
                first = c.clone()
                same = 0
                for _ in range(100):
                    c.fill_(float("nan"))
                    run()
                    same += bool(torch.equal(c.view(torch.int16), first.view(torch.int16)))
                ok = err < 2e-2 and same == 100
                bad += not ok
                print(f"{'ok ' if ok else 'BAD'} {m}x{n}x{k} {str(dtype)[6:]} {config} "
                      f"split {split} (cluster_dims {kernel.meta.get('cluster_dims')}): "
                      f"rel err {err:.2e}, same bits {same}/100", flush=True)
    print(f"{bad} bad")
    return bad


def speed(args, workdir):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    cc = 10 * torch.cuda.get_device_capability()[0] + torch.cuda.get_device_capability()[1]
    print(f"{torch.cuda.get_device_name(0)}, {sms} SMs; TFLOP/s, bf16; * the model's pick")
    for n, k in SPEED_WEIGHTS:
        for m in (16, 64, 128, 512):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            line = f"{m:4d} x {n:5d} x {k:5d}:"
            for config in CONFIGS:
                # Each split compiled once: the model's one-CTA kernel is
                # also split 1's.
                build = lru_cache(maxsize=None)(
                    lambda split: launcher(args.tilec, workdir, m, n, k, torch.bfloat16,
                                           config, split, a, w, c))
                programs = -(-m // config[0]) * -(-n // config[1])
                model = jit_cluster_split(lambda split: build(split)[0], programs, sms, cc)
                for split in (1, 2, 3, 4):
                    _, run, programs = build(split)
                    ms = do_bench(run, warmup=10, rep=40, return_mode="median")
                    star = "*" if split == model else " "
                    line += f" {config[0]}/S{split} {2 * m * n * k / ms / 1e9:6.1f}{star}"
            ms = do_bench(lambda: F.linear(a, w), warmup=10, rep=40, return_mode="median")
            print(f"{line} | cuBLAS {2 * m * n * k / ms / 1e9:6.1f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(1)
    with tempfile.TemporaryDirectory() as workdir:
        if args.check:
            sys.exit(1 if check(args, workdir) else 0)
        speed(args, workdir)


if __name__ == "__main__":
    main()
