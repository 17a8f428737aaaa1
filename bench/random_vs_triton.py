#!/usr/bin/env python3
"""tl.rand, tl.randint and tl.randint4x against real Triton: the kernel of
test/Interpreter/random.tl run by Triton, by tilec on the GPU and on the
interpreter (tile-run), for a small and a 64-bit seed; every buffer must
be bit-identical.

    python3 bench/random_vs_triton.py --tile-run build/bin/tile-run
"""
import argparse
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "test", "Interpreter", "random.tl")


def load_kernel():
    loader = importlib.machinery.SourceFileLoader("random_tl", KERNEL)
    spec = importlib.util.spec_from_loader("random_tl", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module.random_words


def tile_run(tile_run, backend, seed, workdir):
    w = os.path.join(workdir, "w.npy")
    f = os.path.join(workdir, "f.npy")
    np.save(w, np.zeros(5 * 128, np.int32))
    np.save(f, np.zeros(2 * 128, np.float32))
    out = os.path.join(workdir, backend)
    subprocess.run([tile_run, KERNEL, "--grid", "2", "--backend", backend,
                    "--signature", "*i32, *fp32, i64", "-o", out, w, f, str(seed)],
                   check=True)
    return np.load(os.path.join(out, "w_ptr.npy")), np.load(os.path.join(out, "f_ptr.npy"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-run", required=True)
    args = parser.parse_args()
    kernel = load_kernel()
    ok = True
    for seed in (1234, 81985529216486895):
        w = torch.zeros(5 * 128, dtype=torch.int32, device="cuda")
        f = torch.zeros(2 * 128, dtype=torch.float32, device="cuda")
        kernel[(2,)](w, f, seed)
        triton = (w.cpu().numpy(), f.cpu().numpy())
        with tempfile.TemporaryDirectory() as workdir:
            for backend in ("cuda", "interp"):
                got = tile_run(args.tile_run, backend, seed, workdir)
                for name, a, b in (("words", got[0], triton[0]), ("floats", got[1], triton[1])):
                    same = np.array_equal(a.view(np.uint32), b.view(np.uint32))
                    ok &= same
                    print(f"seed {seed:>20} tilec {backend:6s} {name:6s} "
                          f"{'identical to Triton' if same else 'DIFFER from Triton'}")
    print("tl.rand agrees with Triton" if ok else "TL.RAND DIFFERS FROM TRITON")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
