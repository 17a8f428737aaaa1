"""The driver of test/Triton: kernels written in the style of Triton's
tutorials, each file <name>.tl beside a spec module Inputs/<name>.py.

A spec module's cases() yields Case objects: the kernel, the grid, the
runtime arguments in order (NumPy arrays for pointers, Python numbers for
scalars), the constexprs, num_warps, and for each output buffer a NumPy
reference (float64 where it is a float) and a tolerance. The same cases
drive the interpreter tests here and the GPU harness
bench/triton_suite_vs_triton.py (tilec on the GPU and real Triton on the
same .tl file).

    python3 suite.py interp <name> --tile-run PATH --workdir DIR [--case C]

runs each case of <name> with tile-run on the interpreter and prints
`<name> <case> ok` per case, `<name> all ok` at the end, or what differs
(and exits 1).
"""
import argparse
import importlib
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.dirname(HERE)


# Run as a script, this module is __main__; the specs import it as suite.
# One module, so that their Table and Case are this file's.
sys.modules.setdefault("suite", sys.modules[__name__])


class Table:
    """An int64 table of the addresses of `arrays`, as host code builds it
    from tensors' data_ptr(): tile-run takes it as table:a.npy,b.npy,... and
    writes the arrays back as <param>.0.npy, <param>.1.npy, ..."""

    def __init__(self, arrays):
        self.arrays = list(arrays)


class Case:
    """One launch of a kernel and what it must leave.

    args: [(parameter, value)] for the runtime parameters in order: an
        ndarray (a buffer; its dtype is the pointer's element type), a Table,
        an int (i32, or i64 when it needs it) or a float (fp32).
    constexprs: {name: value} (int, float, bool, str or None).
    outputs: {parameter: (reference, tolerance)}. tolerance 0: identical
        (NaNs where the reference has them); else the largest difference
        over the largest |reference| (NaNs where the reference has them).
        A Table parameter's reference is a list, one per array.
    exact_vs_triton: outputs with a tolerance against the reference that
        tilec's GPU kernel and Triton must still compute bit for bit (same
        instructions: tl.rand, fp32 division by a scalar).
    """

    def __init__(self, name, kernel, grid, args, outputs, constexprs=None,
                 num_warps=4, num_stages=None, exact_vs_triton=(), signature=None):
        self.name = name
        self.kernel = kernel
        self.grid = tuple(grid)
        self.args = list(args)
        self.outputs = dict(outputs)
        self.constexprs = dict(constexprs or {})
        self.num_warps = num_warps
        self.num_stages = num_stages
        # tile-run's --signature, when the runtime parameters' types are to
        # be specialized as Triton's JIT does (integers divisible by 16).
        self.signature = signature
        self.exact_vs_triton = tuple(exact_vs_triton)
        names = [n for n, _ in self.args]
        for out in self.outputs:
            assert out in names, f"{name}: output {out} is no argument"

    @property
    def needs_addresses(self):
        return any(isinstance(v, Table) for _, v in self.args)


def load_spec(name):
    """The spec module Inputs/<name>.py."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    return importlib.import_module(name)


def kernel_file(name):
    return os.path.join(SUITE, name + ".tl")


def constexpr_text(value):
    """A constexpr as tile-run's and tilec's -D NAME=VALUE read it."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def scalar_text(value):
    """A scalar argument as tile-run reads it (a real number is fp32)."""
    if isinstance(value, bool):
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def tile_run_command(tile_run, name, case, directory, backend="interp"):
    """The tile-run command line of `case`, with its input .npy files
    written into `directory`; outputs go to `directory`/out."""
    os.makedirs(directory, exist_ok=True)
    out = os.path.join(directory, "out")
    command = [tile_run, kernel_file(name), "--kernel", case.kernel,
               "--grid", ",".join(map(str, case.grid)), "--backend", backend,
               "--num-warps", str(case.num_warps), "-o", out]
    if case.num_stages is not None:
        command += ["--num-stages", str(case.num_stages)]
    if case.signature is not None:
        command += ["--signature", case.signature]
    for key, value in case.constexprs.items():
        command += ["-D", f"{key}={constexpr_text(value)}"]
    # A parameter the signature fixes (an integer specialized as 1) is no
    # longer passed, as in Triton's AOT launchers.
    fixed = set()
    if case.signature is not None:
        entries = [e.strip() for e in case.signature.split(",")]
        fixed = {i for i, e in enumerate(entries[:len(case.args)])
                 if not e.startswith(("*", "i", "u", "fp", "bf"))}
    for i, (param, value) in enumerate(case.args):
        if i in fixed:
            continue
        if isinstance(value, np.ndarray):
            path = os.path.join(directory, param + ".npy")
            np.save(path, value)
            command.append(path)
        elif isinstance(value, Table):
            paths = [os.path.join(directory, f"{param}.{i}.npy")
                     for i in range(len(value.arrays))]
            for path, array in zip(paths, value.arrays):
                np.save(path, array)
            command.append("table:" + ",".join(paths))
        else:
            command.append(scalar_text(value))
    return command, out


def compare(got, want, tolerance):
    """(whether `got` matches the reference `want`, a few words: "identical",
    "max error E" or what differs). A list (a Table's arrays) matches when
    each of its arrays does."""
    if isinstance(want, list):
        results = [compare(g, w, tolerance) for g, w in zip(got, want)]
        bad = [f"[{i}] {text}" for i, (ok, text) in enumerate(results) if not ok]
        if bad:
            return False, "; ".join(bad)
        errors = [float(text.split()[-1]) for _, text in results if text != "identical"]
        return True, f"max error {max(errors):.1e}" if errors else "identical"
    got = np.asarray(got)
    want = np.asarray(want)
    if got.size != want.size:
        return False, f"{got.size} elements, expected {want.size}"
    got = got.reshape(want.shape)
    if want.dtype.kind in "iub" or got.dtype.kind in "iub":
        tolerance = 0
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    nan_w, nan_g = np.isnan(w), np.isnan(g)
    if (nan_w != nan_g).any():
        where = tuple(int(i) for i in np.argwhere(nan_w != nan_g)[0])
        return False, (f"NaN mismatch at {where}: got {g[where]!r}, "
                       f"expected {w[where]!r}")
    g, w = np.where(nan_w, 0, g), np.where(nan_w, 0, w)
    if np.array_equal(g, w):
        return True, "identical"
    if tolerance == 0:
        bad = np.argwhere(g != w)
        where = tuple(int(i) for i in bad[0])
        return False, (f"{len(bad)} of {w.size} elements differ; first at "
                       f"{where}: got {g[where]!r}, expected {w[where]!r}")
    scale = max(float(np.abs(w).max(initial=0)), np.finfo(np.float64).tiny)
    error = np.abs(g - w)
    worst = float(error.max(initial=0)) / scale
    if worst <= tolerance:
        return True, f"max error {worst:.1e}"
    where = np.unravel_index(int(np.argmax(error)), error.shape)
    where = tuple(int(i) for i in where)
    return False, (f"max error {worst:.3g} of max |reference| > {tolerance:g}; "
                   f"worst at {where}: got {g[where]!r}, expected {w[where]!r} "
                   f"({int((error > tolerance * scale).sum())} elements out of "
                   f"tolerance)")


def read_output(out, case, param):
    """What tile-run left in `out` for the output `param`: its buffer, or
    a Table's list of arrays."""
    value = dict(case.args)[param]
    if isinstance(value, Table):
        return [np.load(os.path.join(out, f"{param}.{i}.npy"))
                for i in range(len(value.arrays))]
    return np.load(os.path.join(out, param + ".npy"))


def run_interp(args):
    spec = load_spec(args.name)
    workdir = os.path.abspath(args.workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    failed = []
    for case in spec.cases():
        if args.case and case.name != args.case:
            continue
        directory = os.path.join(workdir, case.name)
        command, out = tile_run_command(args.tile_run, args.name, case, directory)
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode:
            print(f"{args.name} {case.name} FAILED: tile-run exited with "
                  f"{result.returncode}\n  {' '.join(command)}\n"
                  f"{result.stderr.rstrip()}")
            failed.append(case.name)
            continue
        problems = []
        for param, (reference, tolerance) in case.outputs.items():
            ok, text = compare(read_output(out, case, param), reference, tolerance)
            if not ok:
                problems.append(f"  {param}: {text}")
        if problems:
            print(f"{args.name} {case.name} MISMATCH\n" + "\n".join(problems))
            failed.append(case.name)
        else:
            print(f"{args.name} {case.name} ok")
    if failed:
        print(f"{args.name}: {len(failed)} case(s) failed: {', '.join(failed)}")
        return 1
    print(f"{args.name} all ok")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    interp = sub.add_parser("interp", help="run a spec's cases on tile-run's interpreter")
    interp.add_argument("name", help="the kernel file's name, e.g. softmax")
    interp.add_argument("--tile-run", required=True)
    interp.add_argument("--workdir", required=True)
    interp.add_argument("--case", help="only this case")
    args = parser.parse_args()
    return run_interp(args)


if __name__ == "__main__":
    sys.exit(main())
