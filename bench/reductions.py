#!/usr/bin/env python3
"""Bandwidth of the dot product (2^26 fp32) and of row mean-normalization
(16384 x 4096 fp32): tilec, real Triton on the same .tl file, torch, and a
device-to-device copy, measured in one run over a sweep of launch
configurations (the same for tilec and Triton), each figure the median of
interleaved runs. Prints a table and writes JSON.

    python3 bench/reductions.py --tilec build/bin/tilec [--json out.json]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

import torch
import triton
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_triton import TilecKernel, load_tl  # noqa: E402


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


ROUNDS = 7


def timed(amount, launches, rate=gbps, rounds=ROUNDS):
    """The rate (GB/s for `amount` bytes by default) of each launch by name,
    each the median of `rounds` do_bench runs taken in turn, so that drifts
    of the clock or the memory hit all alike, and the spread of those runs
    ((max - min) / median) as name + "_spread": differences below it are
    noise."""
    runs = {name: [] for name in launches}
    for _ in range(rounds):
        for name, launch in launches.items():
            runs[name].append(rate(amount, do_bench(launch)))
    result = {}
    for name, values in runs.items():
        median = statistics.median(values)
        result[name] = median
        result[name + "_spread"] = (max(values) - min(values)) / median
    return result


def sweep(workload, configs, measure):
    """Measures tilec and Triton at every configuration (the same launch for
    both). The row reports tilec's best configuration with Triton at the
    same one, and Triton's best over the sweep."""
    results = []
    for config in configs:
        r = measure(**config)
        r["config"] = config
        print(f"  {workload}, {config}: tilec {r['tilec']:.0f} GB/s "
              f"(spread {100 * r['tilec_spread']:.1f}%), triton "
              f"{r['triton']:.0f} GB/s (spread {100 * r['triton_spread']:.1f}%), "
              f"tilec/triton {r['tilec'] / r['triton']:.3f}, "
              f"correct {r['correct']}", flush=True)
        results.append(r)
    best = max(results, key=lambda r: r["tilec"])
    triton_best = max(results, key=lambda r: r["triton"])
    return {"workload": workload, "tilec": best["tilec"],
            "triton": best["triton"], "config": best["config"],
            "spread": max(best["tilec_spread"], best["triton_spread"]),
            "triton_best": triton_best["triton"],
            "triton_best_config": triton_best["config"],
            "correct": all(r["correct"] for r in results), "sweep": results}


def dot_product(tilec, workdir, rows):
    n = 1 << 26
    a = torch.rand(n, device="cuda") - 0.5
    b = torch.rand(n, device="cuda") - 0.5
    nbytes = 2 * 4 * n
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    module = load_tl("dot_product")
    expected = torch.dot(a.double(), b.double()).item()
    tol = 1e-5 * torch.dot(a.abs().double(), b.abs().double()).item()

    def measure(programs_per_sm, block, warps):
        programs = sms * programs_per_sm
        out_triton = torch.zeros(1, device="cuda")
        out_tilec = torch.zeros(1, device="cuda")
        kernel = TilecKernel(tilec, "dot_product",
                             f"*fp32:16, *fp32:16, *fp32:16, i32:16, {block}",
                             workdir, num_warps=warps)
        run_triton = lambda: module.dot_product_kernel[(programs,)](
            a, b, out_triton, n, BLOCK=block, num_warps=warps)
        run_tilec = kernel.bind((programs,), a, b, out_tilec, n)
        run_triton()
        run_tilec()
        torch.cuda.synchronize()
        ok = abs(out_tilec.item() - expected) <= tol and \
            abs(out_triton.item() - expected) <= tol
        return {**timed(nbytes, {"tilec": run_tilec, "triton": run_triton}),
                "correct": ok,
                "result": {"tilec": out_tilec.item(),
                           "triton": out_triton.item(), "double": expected}}

    configs = [{"programs_per_sm": p, "block": b, "warps": w}
               for p in (4, 8, 16) for b in (1024, 2048, 4096) for w in (4, 8)]
    row = sweep("dot product 2^26 fp32", configs, measure)
    row["torch"] = gbps(nbytes, do_bench(lambda: torch.dot(a, b)))
    rows.append(row)


def normalize(tilec, workdir, rows):
    m, n = 16384, 4096
    x = torch.rand(m, n, device="cuda") + 0.5
    nbytes = 2 * 4 * m * n
    module = load_tl("normalize")
    reference = x / x.mean(dim=1, keepdim=True)

    def measure(warps):
        # Poisoned: an element left unwritten fails the check.
        out_tilec = torch.full_like(x, float("nan"))
        out_triton = torch.full_like(x, float("nan"))
        kernel = TilecKernel(tilec, "normalize",
                             f"*fp32:16, *fp32:16, i32:16, i32:16, {n}", workdir,
                             num_warps=warps)
        run_tilec = kernel.bind((m,), x, out_tilec, n, n)
        run_triton = lambda: module.normalize_kernel[(m,)](
            x, out_triton, n, n, BLOCK=n, num_warps=warps)
        run_tilec()
        run_triton()
        torch.cuda.synchronize()
        ok = torch.allclose(out_tilec, reference, rtol=1e-5) and \
            torch.allclose(out_tilec, out_triton, rtol=1e-5)
        return {**timed(nbytes, {"tilec": run_tilec, "triton": run_triton}),
                "correct": ok}

    row = sweep("row mean-normalize 16384x4096 fp32",
                [{"warps": w} for w in (4, 8, 16)], measure)
    row["torch"] = gbps(nbytes, do_bench(
        lambda: x / x.mean(dim=1, keepdim=True)))
    rows.append(row)


def describe(config):
    return ", ".join(f"{k} {v}" for k, v in config.items())


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
    print("| workload (tilec's best configuration) | tilec GB/s | % of copy | "
          "Triton GB/s, same config | tilec/Triton | Triton's best GB/s "
          "(config) | tilec/Triton's best | run-to-run spread | torch GB/s | "
          "correct |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['workload']} ({describe(r['config'])}) | {r['tilec']:.0f} | "
              f"{100 * r['tilec'] / copy:.0f}% | {r['triton']:.0f} | "
              f"{r['tilec'] / r['triton']:.3f}x | {r['triton_best']:.0f} "
              f"({describe(r['triton_best_config'])}) | "
              f"{r['tilec'] / r['triton_best']:.3f}x | "
              f"{100 * r['spread']:.1f}% | {r['torch']:.0f} | "
              f"{r['correct']} |")
    with open(args.json, "w") as f:
        json.dump({"device": device, "triton": triton.__version__,
                   "torch": torch.__version__, "copy_gbps": copy,
                   "rows": rows}, f, indent=2)
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
