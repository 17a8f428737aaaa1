#!/usr/bin/env python3
"""Which PTX each of tl's math functions becomes, in Triton and in tilec,
side by side: one small kernel per function (the same .tl file for both),
the math instructions and libdevice calls of each PTX listed. The PTX goes
to --out for diffing.

    python3 bench/math_ptx.py --tilec build/bin/tilec --out /tmp/math_ptx
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys

import torch

FUNCTIONS = ["exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin",
             "cos", "erf", "floor", "ceil", "abs", "sigmoid",
             "extra.cuda.libdevice.erf", "extra.cuda.libdevice.asin"]
PATTERN = re.compile(r"\b((?:sqrt|rsqrt|sin|cos|lg2|ex2|rcp|div|cvt\.rmi|cvt\.rpi|"
                     r"abs|fma|mul|add|sub|max|min|setp|selp|mov)\.[a-z0-9.]+|"
                     r"call[a-z.]*|__nv_[a-z0-9_]+)")


def kernel_source():
    lines = ["import triton", "import triton.language as tl", ""]
    for i, f in enumerate(FUNCTIONS):
        lines += ["@triton.jit",
                  f"def k{i}(x_ptr: '*fp32', o_ptr: '*fp32'):",
                  "    offs = tl.arange(0, 128)",
                  "    x = tl.load(x_ptr + offs)",
                  f"    tl.store(o_ptr + offs, tl.{f}(x))", ""]
    return "\n".join(lines)


def histogram(ptx):
    counts = {}
    for m in PATTERN.findall(ptx):
        counts[m] = counts.get(m, 0) + 1
    return " ".join(f"{k}x{v}" if v > 1 else k for k, v in sorted(counts.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "math_kernels.py")
    with open(path, "w") as f:
        f.write(kernel_source())
    spec = importlib.util.spec_from_file_location("math_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.rand(128, device="cuda") * 4 + 0.25
    o = torch.empty(128, device="cuda")
    for i, f in enumerate(FUNCTIONS):
        triton_ptx = getattr(module, f"k{i}")[(1,)](x, o).asm["ptx"]
        tilec_path = os.path.join(args.out, f"tilec_{f}.ptx")
        subprocess.run([args.tilec, path, "--kernel", f"k{i}", "-o", tilec_path],
                       check=True)
        with open(os.path.join(args.out, f"triton_{f}.ptx"), "w") as out:
            out.write(triton_ptx)
        print(f"{f:26s} triton: {histogram(triton_ptx)}")
        print(f"{'':26s} tilec:  {histogram(open(tilec_path).read())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
