"""Autotuning, tilec against Triton, on the GPU.

bench/kernels/autotuned_matmul.tl (eight configs that host functions build,
as Triton's matmul tutorial builds its own) is tuned for each shape by
`tile-run --backend cuda --autotune` and by Triton's @triton.autotune on the
same file. Both time each config the same way (do_bench: the median of runs
each after an L2 flush). Printed: every config's time on both sides, each
side's choice, and the chosen kernels' times with their ratio (Triton's best
over tilec's: above 1 when tilec's choice runs faster). tilec's output is
checked against torch.matmul.

    python3 bench/autotune_vs_triton.py --tile-run build/bin/tile-run
"""
import argparse
import importlib.machinery
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "kernels", "autotuned_matmul.tl")
LINE = re.compile(r"^\s*(\*)?\s*(\d+): (.*): (?:([0-9.]+) ms|not run)$")


def tilec_tune(tile_run, a, b, workdir):
    """Runs tile-run --autotune; returns ({config index: ms}, best index,
    the output) ."""
    M, K = a.shape
    N = b.shape[1]
    np.save(os.path.join(workdir, "a.npy"), a)
    np.save(os.path.join(workdir, "b.npy"), b)
    np.save(os.path.join(workdir, "c.npy"), np.zeros((M, N), np.float16))
    out = os.path.join(workdir, "out")
    command = [tile_run, KERNEL, "--backend", "cuda", "--autotune", "-o", out,
               "--grid", "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)",
               *(os.path.join(workdir, f) for f in ("a.npy", "b.npy", "c.npy")),
               *map(str, (M, N, K, K, 1, N, 1, N, 1))]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(result.stderr)
    times, best = {}, None
    for line in result.stderr.splitlines():
        match = LINE.match(line)
        if match:
            index = int(match.group(2))
            times[index] = float(match.group(4)) if match.group(4) else None
            if match.group(1):
                best = index
    return times, best, np.load(os.path.join(out, "c_ptr.npy"))


def triton_tune(kernel, a, b):
    """Runs the same file under Triton's autotuner; returns ({config index:
    ms}, best index)."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) *
                         triton.cdiv(N, meta["BLOCK_N"]),)
    kernel.cache.clear()
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                 b.stride(1), c.stride(0), c.stride(1))
    torch.cuda.synchronize()
    times = {}
    for config, timing in kernel.configs_timings.items():
        ms = timing[0] if isinstance(timing, (list, tuple)) else timing
        times[kernel.configs.index(config)] = float(ms)
    return times, kernel.configs.index(kernel.best_config)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--shapes", default="4096,4096,4096;2048,2048,2048;"
                                            "512,512,512;1000,1000,1000")
    args = parser.parse_args()
    loader = importlib.machinery.SourceFileLoader("autotuned_matmul_tl", KERNEL)
    kernel = loader.load_module().autotuned_matmul
    configs = kernel.configs
    rows = []
    torch.manual_seed(0)
    for shape in args.shapes.split(";"):
        M, N, K = map(int, shape.split(","))
        a = torch.randn((M, K), device="cuda", dtype=torch.float16)
        b = torch.randn((K, N), device="cuda", dtype=torch.float16)
        with tempfile.TemporaryDirectory() as workdir:
            ours, our_best, c = tilec_tune(args.tile_run, a.cpu().numpy(),
                                           b.cpu().numpy(), workdir)
        reference = (a.float() @ b.float()).cpu().numpy()
        error = float(np.max(np.abs(c.astype(np.float32) - reference)))
        ok = error <= 2e-3 * float(np.max(np.abs(reference))) + 1e-2
        theirs, their_best = triton_tune(kernel, a, b)
        print(f"== {M}x{N}x{K}  tilec max error {error:.3g} "
              f"({'ok' if ok else 'WRONG'})")
        print(f"  {'config':<62} {'tilec ms':>9} {'triton ms':>9}")
        for k, config in enumerate(configs):
            mark = ("t" if k == our_best else " ") + ("T" if k == their_best else " ")
            fmt = lambda v: f"{v:9.4f}" if v is not None else "      n/a"
            print(f"{mark} {k}: {str(config)[:58]:<58} {fmt(ours.get(k))} "
                  f"{fmt(theirs.get(k))}")
        flops = 2 * M * N * K
        ours_ms, theirs_ms = ours[our_best], theirs[their_best]
        rows.append((f"{M}x{N}x{K}", our_best, ours_ms, flops / ours_ms / 1e9,
                     their_best, theirs_ms, flops / theirs_ms / 1e9,
                     theirs_ms / ours_ms, ok))
    print()
    print(f"{'shape':<16} {'tilec cfg':>9} {'ms':>8} {'TFLOPS':>7} "
          f"{'triton cfg':>10} {'ms':>8} {'TFLOPS':>7} {'ratio':>6} correct")
    for shape, oc, oms, otf, tc, tms, ttf, ratio, ok in rows:
        print(f"{shape:<16} {oc:>9} {oms:8.4f} {otf:7.1f} {tc:>10} {tms:8.4f} "
              f"{ttf:7.1f} {ratio:6.2f} {'yes' if ok else 'NO'}")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
