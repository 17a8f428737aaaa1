#!/usr/bin/env python3
"""test/Triton's suite on the GPU: each case of each spec (test/Triton/
Inputs/<name>.py) run by tilec on the GPU and by real Triton on the same
.tl file, both compared with the spec's NumPy reference and with each other.

tilec runs through `tile-run --backend cuda` (optionally under
compute-sanitizer), host address tables (suite.Table) included. Triton
imports the .tl file as the Python module it is and launches the @triton.jit function under any
@triton.autotune / @triton.heuristics decorators with the spec's
constexprs, so that both run the same configuration. Outputs the spec
calls exact (tolerance 0, or listed in exact_vs_triton) must be identical
between tilec and Triton; the others agree within the spec's tolerance.

    python3 bench/triton_suite_vs_triton.py --tile-run build/bin/tile-run \\
        [--only softmax,attention] [--case fwd,fwd_gqa] [--sanitize memcheck]

Without a GPU, `--backend interp --no-triton` runs the same plumbing on
tile-run's interpreter (no Triton).
"""
import argparse
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Triton", "Inputs"))
import suite  # noqa: E402

KERNELS = ["softmax", "layer_norm", "attention", "matmul", "dropout",
           "grouped_gemm", "block_ptr_matmul", "descriptor_matmul", "language"]


def run_tile_run(args, name, case, directory, env):
    """tilec through tile-run: the outputs by parameter, or raises."""
    command, out = suite.tile_run_command(args.tile_run, name, case, directory,
                                          args.backend)
    if args.sanitize:
        command = ["compute-sanitizer", "--tool", args.sanitize,
                   "--error-exitcode", "99"] + command
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        lines = (result.stdout + result.stderr).strip().splitlines()
        raise RuntimeError(f"exit {result.returncode}: " + " | ".join(lines[-4:]))
    return {param: suite.read_output(out, case, param) for param in case.outputs}


def device_args(case):
    """The case's arguments as CUDA tensors (fresh copies), and the tensors
    its outputs will be read from: a Table becomes an int64 tensor of its
    arrays' addresses, its output the list of those arrays."""
    import torch
    args, buffers = [], {}
    # fp8 buffers are uint8 bits in the case, fp8 by the signature.
    entries = [e.strip() for e in (case.signature or "").split(",")]
    fp8 = {"*fp8e4nv": torch.float8_e4m3fn, "*fp8e5": torch.float8_e5m2}
    for i, (param, value) in enumerate(case.args):
        if isinstance(value, np.ndarray):
            buffers[param] = torch.from_numpy(value.copy()).cuda()
            pointee = entries[i].split(":")[0] if i < len(entries) else ""
            args.append(buffers[param].view(fp8[pointee]) if pointee in fp8
                        else buffers[param])
        elif isinstance(value, suite.Table):
            buffers[param] = [torch.from_numpy(a.copy()).cuda() for a in value.arrays]
            args.append(torch.tensor([t.data_ptr() for t in buffers[param]],
                                     dtype=torch.int64, device="cuda"))
        else:
            args.append(value)
    return args, buffers


def read_outputs(case, buffers):
    import torch
    torch.cuda.synchronize()
    host = lambda t: t.cpu().numpy()
    return {param: [host(t) for t in buffers[param]] if isinstance(buffers[param], list)
            else host(buffers[param]) for param in case.outputs}


def jit_function(module, kernel):
    """The @triton.jit function under any autotune/heuristics decorators."""
    from triton.runtime.jit import JITFunction
    fn = getattr(module, kernel)
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


def run_triton(module, case):
    launch_args, buffers = device_args(case)
    options = {"num_warps": case.num_warps}
    if case.num_stages is not None:
        options["num_stages"] = case.num_stages
    jit_function(module, case.kernel)[case.grid](*launch_args, **case.constexprs, **options)
    return read_outputs(case, buffers)


def load_module(name):
    """test/Triton/<name>.tl imported as the Python module it is."""
    loader = importlib.machinery.SourceFileLoader(f"suite_{name}", suite.kernel_file(name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def first_line(error):
    text = str(error).strip().splitlines()
    return (text[-1] if text else type(error).__name__)[:150].replace("|", "/")


HEADER = ("| kernel | case | output | tilec vs reference | Triton vs reference "
          "| tilec vs Triton |\n| --- | --- | --- | --- | --- | --- |")


def run_case(args, name, module, case, workdir, env):
    """Prints the case's rows of the table, one per output; returns whether
    every check passed."""
    row = lambda *cells: print("| " + " | ".join([name, case.name] + list(cells)) + " |",
                               flush=True)
    results = {}
    try:
        results["tilec"] = run_tile_run(args, name, case,
                                        os.path.join(workdir, case.name), env)
    except Exception as e:  # noqa: BLE001 - reported per case
        results["tilec"] = f"FAILED: {first_line(e)}"
    results["Triton"] = "not run"
    if module is not None:
        try:
            results["Triton"] = run_triton(module, case)
        except Exception as e:  # noqa: BLE001 - reported per case
            results["Triton"] = f"FAILED: {first_line(e)}"
    ok = all(not isinstance(r, str) or r == "not run" for r in results.values())
    ran = lambda who: isinstance(results[who], dict)
    for param, (reference, tolerance) in case.outputs.items():
        cells = []
        for who in ("tilec", "Triton"):
            if not ran(who):
                cells.append(results[who])
                continue
            good, text = suite.compare(results[who][param], reference, tolerance)
            ok &= good
            cells.append(text if good else f"**FAIL** {text}")
        if ran("tilec") and ran("Triton"):
            exact = tolerance == 0 or param in case.exact_vs_triton
            good, text = suite.compare(results["tilec"][param], results["Triton"][param],
                                       0 if exact else tolerance)
            ok &= good
            cells.append(text if good else f"**DIFFER** {text}")
        else:
            cells.append("-")
        row(param, *cells)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--only", help="comma-separated kernel files, e.g. softmax,matmul")
    parser.add_argument("--backend", default="cuda", choices=["cuda", "interp"],
                        help="tile-run's backend (interp: a dry run without a GPU)")
    parser.add_argument("--no-triton", action="store_true", help="tilec only")
    parser.add_argument("--case", help="comma-separated case names: only these cases "
                                       "(with --only, of those files)")
    parser.add_argument("--sanitize", metavar="TOOL",
                        help="run tile-run under compute-sanitizer --tool TOOL")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else KERNELS
    env = dict(os.environ)
    use_triton = not args.no_triton
    if use_triton:
        import torch
        import triton
        print(f"device: {torch.cuda.get_device_name()}, triton {triton.__version__}")
        # In-kernel tensor descriptors take their scratch from this.
        triton.set_allocator(lambda size, align, stream:
                             torch.empty(size, dtype=torch.int8, device="cuda"))
        # tilec links Triton's own libdevice, for the same math.
        from language_vs_triton import triton_libdevice
        if triton_libdevice():
            env["TILEC_LIBDEVICE"] = triton_libdevice()
    ok, count = True, 0
    start = time.perf_counter()
    print(HEADER)
    with tempfile.TemporaryDirectory() as workdir:
        if use_triton:
            os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(workdir, "triton"))
        for name in names:
            module = None
            if use_triton:
                try:
                    module = load_module(name)
                except Exception as e:  # noqa: BLE001 - reported per file
                    print(f"| {name} | - | - | - | Triton cannot import {name}.tl: "
                          f"{first_line(e)} | - |")
                    ok = False
            for case in suite.load_spec(name).cases():
                if args.case and case.name not in args.case.split(","):
                    continue
                ok &= run_case(args, name, module, case, os.path.join(workdir, name), env)
                count += 1
    print(f"{count} cases of test/Triton in {time.perf_counter() - start:.0f} s: " +
          (("tilec agrees with the references" + ("" if use_triton else " (Triton not run)")
            if not use_triton else
            "tilec and Triton agree with the references and with each other") if ok
           else "SOME CASES FAIL OR DIFFER"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
