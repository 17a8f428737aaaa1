#!/usr/bin/env python3
"""One launch each of tilec's and Triton's kernel for a few tl.dot
configurations, to be run under Nsight Compute, with both kernels' SASS
(and Triton's TTGIR) written next to the report:

    ncu --set full -o prof python3 bench/profile_matmul.py --tilec build/bin/tilec --out DIR \
        [--arch sm_90a] [names...]

Kernels are launched in the order printed (tilec, then Triton, then
cuBLAS with --cublas, per workload), which is the order of ncu's report.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_triton import TilecKernel, load_tl  # noqa: E402

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}

# name: (form, dtype, precision, BLOCK_M, BLOCK_N, BLOCK_K, warps, stages);
# the split-K loop form's precision slot holds its SPLIT_K.
WORKLOADS = {
    "slab_fp16": ("slab", "fp16", None, 64, 64, 256, 4, 1),
    "slab_fp32": ("slab", "fp32", None, 64, 64, 128, 4, 1),
    "loop_fp16": ("loop", "fp16", 32, 64, 64, 64, 4, 3),
    "loop_fp16_128": ("loop", "fp16", 64, 128, 128, 64, 4, 3),
    "mm_tf32": ("matmul", "fp32", "tf32", 128, 256, 32, 8, 3),
    "mm_ieee": ("matmul", "fp32", "ieee", 128, 128, 32, 4, 3),
    "mm_fp16_k64": ("matmul", "fp16", "tf32", 128, 128, 64, 4, 3),
    "mm_fp16": ("matmul", "fp16", "tf32", 128, 128, 32, 8, 4),
    # Hopper's best configurations (run with --arch sm_90a for wgmma).
    "mm_fp16_256": ("matmul", "fp16", "tf32", 128, 256, 64, 8, 4),
    "mm_fp16_256_s3": ("matmul", "fp16", "tf32", 128, 256, 64, 8, 3),
    "mm_bf16_256": ("matmul", "bf16", "tf32", 128, 256, 64, 8, 3),
    "mm_tf32_256": ("matmul", "fp32", "tf32", 256, 128, 32, 8, 3),
    # The tutorial-style kernel (bench/kernels/grouped_matmul.tl), GROUP_M 8.
    "grouped_fp16_256": ("grouped", "fp16", None, 128, 256, 64, 8, 3),
}
GROUPED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels",
                       "grouped_matmul.tl")


def sass(cubin, path):
    with open(path, "w") as f:
        subprocess.run(["cuobjdump", "--dump-sass", cubin], stdout=f, check=False)


def workload(args, name, workdir):
    form, dtype, precision, bm, bn, bk, warps, stages = WORKLOADS[name]
    torch_dtype = TORCH[dtype]
    if form in ("slab", "loop"):
        m, n, k = 256, 256, 65536
        module = load_tl("splitk_matmul")
        kernel_name = "splitk_slab_kernel" if form == "slab" else "splitk_kernel"
        a = torch.randn(m, k, device="cuda", dtype=torch_dtype)
        b = torch.randn(k, n, device="cuda", dtype=torch_dtype)
        c = torch.zeros(m, n, device="cuda", dtype=torch.float32)
        grid = (m // bm, n // bn, k // bk if form == "slab" else precision)
        ints = [m, n, k, k, n, n]
        signature = [f"*{dtype}:16", f"*{dtype}:16", "*fp32:16", "i32:16", "i32:16",
                     "i32:16", "i32:16", "1", "i32:16", "1", "i32:16", "1",
                     str(bm), str(bn), str(bk)] + ([] if form == "slab" else [str(precision)])
        triton_args = (a, b, c, m, n, k, k, 1, n, 1, n, 1)
        consts = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
        if form == "loop":
            consts["SPLIT_K"] = precision
        source = "splitk_matmul"
    elif form == "grouped":
        m = n = k = 4096
        module, kernel_name = load_tl("grouped_matmul", GROUPED), "grouped_matmul_kernel"
        a = torch.randn(m, k, device="cuda", dtype=torch_dtype)
        b = torch.randn(k, n, device="cuda", dtype=torch_dtype)
        c = torch.empty(m, n, device="cuda", dtype=torch_dtype)
        grid = ((m // bm) * (n // bn),)
        ints = [m, n, k, k, n, n]
        signature = [f"*{dtype}:16"] * 3 + ["i32:16"] * 3 + [
            "i32:16", "1", "i32:16", "1", "i32:16", "1", str(bm), str(bn), str(bk), "8"]
        triton_args = (a, b, c, m, n, k, k, 1, n, 1, n, 1)
        consts = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)
        source = GROUPED
    else:
        m = n = k = 4096
        module, kernel_name = load_tl("matmul"), "matmul_kernel"
        a = torch.randn(1, m, k, device="cuda", dtype=torch_dtype)
        b = torch.randn(1, k, n, device="cuda", dtype=torch_dtype)
        c = torch.empty(1, m, n, device="cuda", dtype=torch_dtype)
        grid = (m // bm, n // bn, 1)
        strides = [m * k, k, k * n, n, m * n, n]
        ints = [m, n, k] + strides
        signature = [f"*{dtype}:16"] * 3 + ["i32:16"] * 3 + [
            "i32:16", "i32:16", "1", "i32:16", "i32:16", "1", "i32:16", "i32:16", "1",
            str(bm), str(bn), str(bk), f"'{precision}'"]
        triton_args = (a, b, c, m, n, k, m * k, k, 1, k * n, n, 1, m * n, n, 1)
        consts = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, PRECISION=precision)
        source = "matmul"
    options = ["--kernel", kernel_name, "--num-stages", str(stages), "--arch", args.arch]
    signature = ", ".join(signature)
    path = source if source.endswith(".tl") else os.path.join(
        os.path.dirname(__file__), "..", "dsl-examples", source + ".tl")
    tilec = TilecKernel(args.tilec, os.path.basename(path)[:-3], signature, workdir,
                        warps, options, path=path)
    launch = tilec.bind(grid, a, b, c, *ints)
    cubin = os.path.join(args.out, f"{name}_tilec.cubin")
    subprocess.run([args.tilec, path,
                    "--signature", signature, "--num-warps", str(warps),
                    "--emit=cubin", "-o", cubin] + options, check=True)
    sass(cubin, os.path.join(args.out, f"{name}_tilec.sass"))
    print(f"{name}: tilec {tilec.meta['kernel']}, {tilec.meta['shared_bytes']} B shared",
          flush=True)
    launch()
    torch.cuda.synchronize()
    compiled = getattr(module, kernel_name)[grid](*triton_args, **consts, num_warps=warps,
                                                  num_stages=stages)
    torch.cuda.synchronize()
    print(f"{name}: triton, {compiled.metadata.shared} B shared", flush=True)
    triton_cubin = os.path.join(args.out, f"{name}_triton.cubin")
    with open(triton_cubin, "wb") as f:
        f.write(compiled.asm["cubin"])
    with open(os.path.join(args.out, f"{name}_triton.ttgir"), "w") as f:
        f.write(compiled.asm["ttgir"])
    with open(os.path.join(args.out, f"{name}_triton.ptx"), "w") as f:
        f.write(compiled.asm["ptx"])
    sass(triton_cubin, os.path.join(args.out, f"{name}_triton.sass"))
    if args.cublas:
        torch.matmul(a, b)
        torch.cuda.synchronize()
        print(f"{name}: cuBLAS (torch.matmul)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--arch", default="sm_90", help="tilec's --arch (sm_90a: wgmma)")
    parser.add_argument("--cublas", action="store_true",
                        help="launch torch.matmul on the same operands after each pair")
    parser.add_argument("names", nargs="*", default=list(WORKLOADS))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.names:
            workload(args, name, workdir)


if __name__ == "__main__":
    main()
