#!/usr/bin/env python3
"""Runs each dsl-example with real Triton and with tilec's PTX on the same
inputs, in one process: checks the outputs agree and reports the speed ratio
and the cold compile times.

tilec's kernels are compiled by the tilec binary to PTX + JSON, loaded by
CuPy's RawModule and launched through the driver from those two files alone
(README, "Three ways in"; bench/launch.py).

    python3 bench/compare_triton.py --tilec build/bin/tilec
"""
import argparse
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
import time

import cupy
import numpy as np
import torch
import triton
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import launch  # noqa: E402
from harness import (MAX_MODEL_CLUSTER_SPLIT, cluster_split_k, compile_tl,  # noqa: E402
                     may_cluster_split_k, stream_k_launch)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "dsl-examples")


def load_tl(name, path=None):
    """Imports dsl-examples/<name>.tl (or `path`) as the Python module it
    also is."""
    path = path or os.path.join(EXAMPLES, name + ".tl")
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class TilecKernel:
    """A kernel compiled by tilec, launched from its .ptx and .json."""

    def __init__(self, tilec, name, signature, workdir, num_warps=4,
                 options=(), path=None):
        # Named by everything that changes the code: a kernel of one name
        # from two files must not share a .ptx (cupy loads a path once).
        ptx = os.path.join(workdir, f"{name}_{abs(hash((path, signature, tuple(options))))}"
                                    f"_{num_warps}.ptx")
        self.meta, self.compile_ms = compile_tl(
            tilec, path or os.path.join(EXAMPLES, name + ".tl"), ptx, signature,
            num_warps, options)
        self.function = cupy.RawModule(path=ptx).get_function(self.meta["kernel"])
        if self.meta["shared_bytes"] > 48 * 1024:
            self.function.max_dynamic_shared_size_bytes = self.meta["shared_bytes"]

    def __call__(self, grid, *args):
        self.bind(grid, *args)()

    def bind(self, grid, *args):
        """A launch with its arguments converted once, for timing loops."""
        converted = []
        for param, arg in zip(self.meta["params"], args):
            if isinstance(arg, torch.Tensor):
                converted.append(arg.data_ptr())
            elif isinstance(arg, cupy.ndarray):
                converted.append(arg.data.ptr)
            elif param["type"] == "fp32":
                converted.append(float(arg))
            else:
                converted.append(int(arg))
        return launch.bind(self.function, self.meta, grid, converted)


def jit_cluster_split(kernel_for, programs, multiprocessors, capability):
    """The cluster split tilec's JIT launches a grid of `programs` with
    (JITFunction::findForGrid): the kernel with one CTA a program
    (`kernel_for(1)`, a TilecKernel) says whether it splits and gives its
    capacity to harness.cluster_split_k. Returns the split."""
    single = kernel_for(1)
    if (not single.meta.get("cluster_splittable")
            or not may_cluster_split_k(programs, multiprocessors, capability)):
        return 1
    capacity = [0] + [launch.co_resident_clusters(single.function, single.meta, ctas) or 0
                      for ctas in range(1, MAX_MODEL_CLUSTER_SPLIT + 1)]
    return cluster_split_k(programs, multiprocessors, capability, capacity)


def jit_split(kernel_for, programs, multiprocessors, capability):
    """The split of the K loop tilec's JIT launches a grid of `programs`
    with (JITFunction::findForGrid): a cluster split of 2 to 4 CTAs, else
    "stream-k" where the kernel's stream-K form pays
    (harness.stream_k_launch), else 1. `kernel_for(1)` is the kernel with
    one CTA a program."""
    split = jit_cluster_split(kernel_for, programs, multiprocessors, capability)
    single = kernel_for(1)
    if split == 1 and single.meta.get("stream_k_splittable") and stream_k_launch(
            programs, launch.resident_ctas(single.function, single.meta))[1]:
        return "stream-k"
    return split


def triton_cold_ms(run):
    """Wall time of the first launch (compile included) minus a warm one."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    run()
    torch.cuda.synchronize()
    first = time.perf_counter() - start
    start = time.perf_counter()
    run()
    torch.cuda.synchronize()
    return (first - (time.perf_counter() - start)) * 1e3


def report(name, case, same, t_triton, t_tilec, gbytes, c_triton, c_tilec):
    print(f"{name:10s} {case:22s} outputs {'identical' if same else 'DIFFER':9s} "
          f"triton {t_triton * 1e3:8.1f} us ({gbytes / t_triton * 1e-6:7.0f} GB/s)  "
          f"tilec {t_tilec * 1e3:8.1f} us ({gbytes / t_tilec * 1e-6:7.0f} GB/s)  "
          f"tilec/triton speed {t_triton / t_tilec:5.2f}x   "
          f"cold compile: triton {c_triton:6.0f} ms, tilec {c_tilec:5.0f} ms",
          flush=True)
    return same


def vector_add(tilec, workdir):
    module = load_tl("vector_add")
    ok = True
    for n in [1000003, 98432, 1 << 26]:
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        out_triton = torch.full_like(x, -2.0)
        out_tilec = torch.full_like(x, -1.0)
        block = 1024
        grid = (triton.cdiv(n, block),)
        run_triton = lambda: module.add_kernel[grid](x, y, out_triton, n,
                                                     BLOCK_SIZE=block)
        cold = triton_cold_ms(run_triton)
        div = ":16" if n % 16 == 0 else ""
        kernel = TilecKernel(tilec, "vector_add",
                             f"*fp32:16, *fp32:16, *fp32:16, i32{div}, {block}",
                             workdir)
        run_tilec = kernel.bind(grid, x, y, out_tilec, n)
        run_tilec()
        torch.cuda.synchronize()
        same = torch.equal(out_triton, out_tilec) and torch.equal(out_tilec, x + y)
        ok &= report("vector_add", f"n={n}", same, do_bench(run_triton),
                     do_bench(run_tilec), 3 * 4 * n, cold, kernel.compile_ms)
    return ok


def transpose(tilec, workdir):
    module = load_tl("transpose")
    ok = True
    for m, n in [(1000, 777), (4096, 4096)]:
        a = torch.randn(m, n, device="cuda")
        out_triton = torch.empty(n, m, device="cuda")
        out_tilec = torch.full((n, m), -1.0, device="cuda")
        bm = bn = 64
        grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
        run_triton = lambda: module.transpose_kernel[grid](
            a, out_triton, m, n, n, m, BLOCK_M=bm, BLOCK_N=bn)
        cold = triton_cold_ms(run_triton)
        ints = ", ".join("i32:16" if v % 16 == 0 else "i32" for v in (m, n, n, m))
        kernel = TilecKernel(tilec, "transpose",
                             f"*fp32:16, *fp32:16, {ints}, {bm}, {bn}", workdir)
        run_tilec = kernel.bind(grid, a, out_tilec, m, n, n, m)
        run_tilec()
        torch.cuda.synchronize()
        same = torch.equal(out_triton, out_tilec) and torch.equal(out_tilec, a.t())
        ok &= report("transpose", f"{m}x{n}", same, do_bench(run_triton),
                     do_bench(run_tilec), 2 * 4 * m * n, cold, kernel.compile_ms)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True, help="the tilec binary")
    args = parser.parse_args()
    print(f"device: {torch.cuda.get_device_name()}, triton {triton.__version__}")
    with tempfile.TemporaryDirectory() as workdir:
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(workdir, "triton"))
        ok = vector_add(args.tilec, workdir) & transpose(args.tilec, workdir)
    print("all outputs identical" if ok else "SOME OUTPUTS DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
