#!/usr/bin/env python3
"""tl's language against real Triton: kernels of test/Interpreter run by
Triton, by tilec on the GPU and on the interpreter (tile-run), on the same
.tl files and inputs.

Random numbers and libdevice math (random.tl, libdevice.tl): tl.rand and
randint must give the same bits as Triton everywhere, and so must tilec's
GPU kernel for tl.randn and the libdevice functions when it links Triton's
own libdevice.10.bc (set as $TILEC_LIBDEVICE here); the interpreter, which
computes those in double, is reported in float32 ulps. The shape functions
(shapes.tl) move integers and must match exactly.

    python3 bench/language_vs_triton.py --tile-run build/bin/tile-run
"""
import argparse
import importlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "test", "Interpreter")


def load_kernel(file, name):
    loader = importlib.machinery.SourceFileLoader(name + "_tl", file)
    spec = importlib.util.spec_from_loader(name + "_tl", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return getattr(module, name)


def triton_libdevice():
    """The libdevice.10.bc that Triton ships and links (its CUDA's, which may
    differ from the toolkit's in the last bits of some functions)."""
    import triton
    root = os.path.dirname(triton.__file__)
    for directory, _, files in os.walk(root):
        if "libdevice.10.bc" in files:
            return os.path.join(directory, "libdevice.10.bc")
    return None


def tile_run(tile_run, file, backend, grid, buffers, scalars, signature,
             workdir, options=(), order=None):
    """Runs `file` with tile-run, linking Triton's libdevice; returns the
    output buffers by name. The arguments are the buffers then `scalars`,
    or `order`: buffer names and numbers in the kernel's order."""
    paths = {}
    for name, array in buffers.items():
        path = os.path.join(workdir, name + ".npy")
        np.save(path, array)
        paths[name] = path
    arguments = ([paths.get(a, a) for a in order] if order else
                 list(paths.values()) + list(scalars))
    out = os.path.join(workdir, backend)
    command = [tile_run, file, "--grid", str(grid), "--backend", backend,
               "-o", out] + list(options)
    if signature:
        command += ["--signature", signature]
    env = dict(os.environ)
    if triton_libdevice():
        env["TILEC_LIBDEVICE"] = triton_libdevice()
    subprocess.run(command + [str(a) for a in arguments], check=True, env=env)
    # tile-run names outputs after parameters: x_ptr for buffer x, or the
    # buffer's own name (a descriptor's base).
    found = lambda name: next(p for p in (os.path.join(out, name + "_ptr.npy"),
                                          os.path.join(out, name + ".npy"))
                              if os.path.exists(p))
    return {name: np.load(found(name)) for name in buffers}


def ulps(a, b):
    """The largest distance in float32 ulps between two float32 arrays."""
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, np.int64(-2**31) - ia, ia)
    ib = np.where(ib < 0, np.int64(-2**31) - ib, ib)
    return int(np.abs(ia - ib).max())


def case_random(args, workdir):
    file = os.path.join(TESTS, "random.tl")
    kernel = load_kernel(file, "random_words")
    ok = True
    for seed in (1234, 81985529216486895):
        buffers = {"w": np.zeros(5 * 128, np.int32), "f": np.zeros(2 * 128, np.float32)}
        tensors = {k: torch.from_numpy(v).cuda() for k, v in buffers.items()}
        kernel[(2,)](tensors["w"], tensors["f"], seed)
        for backend in ("cuda", "interp"):
            got = tile_run(args.tile_run, file, backend, 2, buffers, [seed],
                           "*i32, *fp32, i64", workdir,
                           options=("--kernel", "random_words"))
            for name in buffers:
                same = np.array_equal(got[name].view(np.uint32),
                                      tensors[name].cpu().numpy().view(np.uint32))
                ok &= same
                print(f"random seed {seed:>20} tilec {backend:6s} {name} "
                      f"{'identical to Triton' if same else 'DIFFER from Triton'}")
    return ok


LIBDEVICE_ROWS = ["sin", "cos", "erf", "asin", "pow", "atan2", "fma", "erfinv",
                  "lgamma", "normcdf", "sinh(fp16)", "randn", "randn4x.1",
                  "randn4x.2", "randn4x.3", "randn4x.4", "rand4x.1", "rand4x.2",
                  "rand4x.3", "rand4x.4"]


def case_libdevice(args, workdir):
    file = os.path.join(TESTS, "libdevice.tl")
    kernel = load_kernel(file, "libdevice_kernel")
    rng = np.random.default_rng(11)
    buffers = {"x": rng.uniform(-6, 6, 64).astype(np.float32),
               "out": np.zeros(20 * 64, np.float32)}
    tensors = {k: torch.from_numpy(v).cuda() for k, v in buffers.items()}
    kernel[(1,)](tensors["x"], tensors["out"], 42)
    triton = tensors["out"].cpu().numpy().reshape(20, 64)
    ok = True
    for backend in ("cuda", "interp"):
        got = tile_run(args.tile_run, file, backend, 1, buffers, [42], None,
                       workdir)["out"].reshape(20, 64)
        for row, name in enumerate(LIBDEVICE_ROWS):
            distance = ulps(got[row], triton[row])
            exact = backend == "cuda" or name.startswith("rand4x")
            good = distance == 0 if exact else distance <= 8192
            ok &= good
            print(f"libdevice {name:11s} tilec {backend:6s} "
                  f"{'identical to Triton' if distance == 0 else f'{distance} ulp from Triton'}"
                  f"{'' if good else '  <-- FAIL'}")
    return ok


def print_difference(got, triton):
    got, triton = got.ravel(), triton.ravel()
    where = np.nonzero(got != triton)[0]
    print(f"  at {where[:16]}: tilec {got[where[:16]]}, Triton {triton[where[:16]]}")


def report_exact(label, backend, got, triton):
    """Prints whether tilec's `got` is Triton's output exactly (NaNs where
    Triton has NaNs, -0.0 where it has -0.0); returns it."""
    same = np.array_equal(got, triton)
    if got.dtype.kind == "f" and got.shape == triton.shape:
        same = (np.array_equal(got, triton, equal_nan=True)
                and np.array_equal(np.signbit(got), np.signbit(triton)))
    print(f"{label} tilec {backend:6s} "
          f"{'identical to Triton' if same else 'DIFFER from Triton'}")
    if not same:
        print_difference(got, triton)
    return same


def exact_runs(args, workdir, file, runs, label=""):
    """Each (kernel, buffers, scalars, grid, constexprs[, extra]) of `file`
    run by Triton, then by tilec on the GPU and on the interpreter; the last
    buffer compared exactly, or those `extra["compare"]` names. Triton sees
    the buffers in `extra["views"]` as another torch dtype of the same
    width (numpy's uint8 as torch.float8_e5m2), tilec gets the same types
    from `extra["signature"]`."""
    ok = True
    for name, buffers, scalars, grid, constexprs, *rest in runs:
        extra = rest[0] if rest else {}
        views = extra.get("views", {})
        compared = extra.get("compare", [list(buffers)[-1]])
        kernel = load_kernel(file, name)
        tensors = {k: torch.from_numpy(v).cuda() for k, v in buffers.items()}
        kernel[grid](*[t.view(views[k]) if k in views else t
                       for k, t in tensors.items()], *scalars, **constexprs)
        options = ["--kernel", name] + [a for k, v in constexprs.items()
                                        for a in ("-D", f"{k}={v}")]
        for backend in ("cuda", "interp"):
            got = tile_run(args.tile_run, file, backend, ",".join(map(str, grid)),
                           buffers, scalars, extra.get("signature"), workdir,
                           options)
            for k in compared:
                triton = tensors[k].cpu().numpy()
                shown = name if len(compared) == 1 else f"{name} {k}"
                ok &= report_exact(label + shown, backend,
                                   got[k].reshape(triton.shape), triton)
    return ok


def case_shapes(args, workdir):
    file = os.path.join(TESTS, "shapes.tl")
    kernel = load_kernel(file, "shapes")
    rng = np.random.default_rng(5)
    buffers = {"x": rng.integers(-1000, 1000, (8, 16)).astype(np.int32),
               "out": np.zeros(2048, np.int32)}
    tensors = {k: torch.from_numpy(v).cuda() for k, v in buffers.items()}
    kernel[(1,)](tensors["x"], tensors["out"])
    triton = tensors["out"].cpu().numpy()
    ok = True
    for backend in ("cuda", "interp"):
        got = tile_run(args.tile_run, file, backend, 1, buffers, [],
                       None, workdir, ["--kernel", "shapes"])["out"]
        ok &= report_exact("shapes", backend, got, triton)
    return ok


def case_blocks(args, workdir):
    """Block pointers and tensor descriptors: Triton, tilec's GPU kernel
    and the interpreter on the same ragged shapes, exactly."""
    import triton
    triton.set_allocator(lambda size, align, stream:
                         torch.empty(size, dtype=torch.int8, device="cuda"))
    file = os.path.join(TESTS, "block_pointers.tl")
    rng = np.random.default_rng(9)
    M, N, K = 40, 52, 36
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    runs = [("block_matmul", {"a": a, "b": b, "c": np.full((M, N), -1, np.float32)},
             [M, N, K, K, 1, N, 1, N, 1], (2, 2), {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}),
            ("descriptor_scale", {"x": b.astype(np.float32), "y": np.zeros((K, N), np.float32)},
             [K, N], (3, 2), {"BLOCK_M": 16, "BLOCK_N": 32})]
    ok = exact_runs(args, workdir, file, runs)
    # Descriptors from the host: Triton's TensorDescriptor objects; tilec's
    # `tensordesc` parameters take each one's base, shape and strides.
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = b.astype(np.float32)
    buffers = {"x_desc": x, "y_desc": np.full((K, N), -1, np.float32)}
    tensors = {k: torch.from_numpy(v).cuda() for k, v in buffers.items()}
    load_kernel(file, "host_descriptor_scale")[(3, 2)](
        *[TensorDescriptor.from_tensor(t, [16, 32]) for t in tensors.values()],
        BLOCK_M=16, BLOCK_N=32)
    triton = tensors["y_desc"].cpu().numpy()
    signature = "tensordesc<fp32[16, 32]>, tensordesc<fp32[16, 32]>, 16, 32"
    order = ["x_desc", K, N, N, 1, "y_desc", K, N, N, 1]
    for backend in ("cuda", "interp"):
        got = tile_run(args.tile_run, file, backend, "3,2", buffers, [],
                       signature, workdir,
                       ["--kernel", "host_descriptor_scale"], order)
        ok &= report_exact("host_descriptor_scale", backend,
                           got["y_desc"].reshape(triton.shape), triton)
    return ok


def case_arg_reductions(args, workdir):
    """argmax/argmin tie-breaking and NaNs, return_indices, xor_sum."""
    file = os.path.join(TESTS, "arg_reductions.tl")
    kernel = load_kernel(file, "arg_reductions")
    rng = np.random.default_rng(12)
    f = rng.standard_normal((8, 32)).astype(np.float32)
    f[1, 7] = f[1, 20] = f[5, 30] = np.nan
    f[3, :] = 2.0
    buffers = {"x": rng.integers(-5, 6, (8, 32)).astype(np.int32), "f": f,
               "out": np.full(6 * 8 + 2 * 32 + 2 + 8, -99, np.int32)}
    tensors = {k: torch.from_numpy(v).cuda() for k, v in buffers.items()}
    kernel[(1,)](tensors["x"], tensors["f"], tensors["out"])
    triton = tensors["out"].cpu().numpy()
    # Triton's argmin down a column holding a NaN depends on the order its
    # reduction tree meets the NaN (its combine compares `a < b`); tilec
    # passes NaNs over. Those columns are left out.
    M, N = f.shape
    unordered = [3 * M + N + c for c in np.nonzero(np.isnan(f).any(0))[0]]
    compared = np.setdiff1d(np.arange(triton.size), unordered)
    print(f"arg reductions: {len(unordered)} argmin(f, 0) columns with a NaN "
          "not compared (Triton's answer depends on its reduction order)")
    ok = True
    for backend in ("cuda", "interp"):
        got = tile_run(args.tile_run, file, backend, 1, buffers, [], None,
                       workdir)["out"]
        ok &= report_exact("arg reductions", backend, got[compared],
                           triton[compared])
    return ok


def case_combine(args, workdir):
    """tl.reduce and tl.associative_scan with combine functions, cumsum,
    cumprod, on integers (exact whatever the combination order)."""
    file = os.path.join(TESTS, "combine.tl")
    rng = np.random.default_rng(13)
    runs = [("combine",
             {"x": rng.integers(-9, 10, (8, 16)).astype(np.int32),
              "o": np.full(2048, -99, np.int32)}, [], (1,), {"R": 8, "C": 16}),
            ("long_scans",
             {"y": rng.integers(-9, 10, 1024).astype(np.int32),
              "p": np.full(4 * 1024 + 2, -99, np.int32)}, [], (1,), {"N": 1024})]
    return exact_runs(args, workdir, file, runs, label="combine ")


def test_inputs(name, workdir):
    """test/Interpreter/Inputs/<name>.py imported, its make() run in
    `workdir`; returns the module and a loader of the arrays it wrote."""
    sys.path.insert(0, os.path.join(TESTS, "Inputs"))
    module = importlib.import_module(name)
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        module.make()
    finally:
        os.chdir(cwd)
    return module, lambda array: np.load(os.path.join(workdir, array + ".npy"))


def case_sort(args, workdir):
    """tl.sort, topk, flip (NaNs, -0.0 and 0.0 placed by the network as
    Triton's places them) and tl.histogram."""
    _, load = test_inputs("sort", workdir)
    runs = [("float_sorts", {"x": load("x"), "out": load("out")}, [], (1,),
             {"R": 4, "N": 32, "K": 8}),
            ("int_sorts", {"y": load("y"), "iout": load("iout")}, [], (1,),
             {"N": 1024, "K": 16}),
            # Values inside the bins: Triton leaves others undefined.
            ("counts", {"v": np.abs(load("v")) % 64, "h": load("h")}, [1300],
             (3,), {"BLOCK": 512, "BINS": 64})]
    return exact_runs(args, workdir, os.path.join(TESTS, "sort.tl"), runs,
                      label="sort ")


def case_unsigned(args, workdir):
    """uint8 and uint32 arithmetic, compares, conversions, promotion,
    reductions, cumsum, sort and unsigned atomics."""
    inputs, load = test_inputs("unsigned", workdir)
    runs = [("unsigned_ops", {k: load(k) for k in ("a", "b", "w", "out")},
             [inputs.S], (1,), {"N": inputs.N}),
            ("unsigned_atomics", {"b": load("b"), "m": load("m")}, [], (2,),
             {"N": inputs.N})]
    return exact_runs(args, workdir, os.path.join(TESTS, "unsigned.tl"), runs,
                      label="unsigned ")


def case_fp8(args, workdir):
    """fp8 conversions from fp32 and fp16 (saturating), back to fp32, and
    fp8 dots (e4m3 and e5m2) into fp32."""
    _, load = test_inputs("fp8", workdir)
    e5, e4 = torch.float8_e5m2, torch.float8_e4m3fn
    runs = [("fp8_convert", {n: load(n) for n in ("x", "e5", "e4", "h4", "back")},
             [], (1,), {"N": 256},
             {"signature": "*fp32, *fp8e5, *fp8e4nv, *fp8e4nv, *fp32,",
              "views": {"e5": e5, "e4": e4, "h4": e4},
              "compare": ["e5", "e4", "h4", "back"]}),
            ("fp8_dot", {n: load(n) for n in ("a", "b", "c", "d", "acc")}, [],
             (1,), {"M": 32, "N": 32, "K": 64},
             {"signature": "*fp8e4nv, *fp8e4nv, *fp8e5, *fp8e5, *fp32, , ,",
              "views": {"a": e4, "b": e4, "c": e5, "d": e5}})]
    return exact_runs(args, workdir, os.path.join(TESTS, "fp8.tl"), runs,
                      label="fp8 ")


def run_printing(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    return result.returncode, result.stdout, result.stderr


def triton_stdout(run):
    """What `run()` prints to file descriptor 1 (CUDA's printf), captured."""
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+") as capture:
        saved = os.dup(1)
        os.dup2(capture.fileno(), 1)
        try:
            run()
            torch.cuda.synchronize()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        capture.seek(0)
        return capture.read()


def case_print(args, workdir):
    """device_print's lines on the GPU equal the interpreter's (in some
    order), and are compared with Triton's; a failed device_assert of a
    --debug build stops the GPU kernel with its message."""
    file = os.path.join(TESTS, "device_print.tl")
    x = np.array([3, -1, 7, 9], np.int32)
    np.save(os.path.join(workdir, "x.npy"), x)
    base = [args.tile_run, file, "--grid", "2", os.path.join(workdir, "x.npy"), "3"]
    lines = {}
    for backend in ("cuda", "interp"):
        rc, out, err = run_printing(base + ["--kernel", "show", "--backend", backend,
                                            "-o", os.path.join(workdir, backend)])
        if rc:
            print(f"device_print tilec {backend}: tile-run failed\n{err}")
            return False
        lines[backend] = sorted(out.splitlines())
    ok = lines["cuda"] == lines["interp"]
    print(f"device_print tilec cuda: {len(lines['cuda'])} lines, "
          f"{'the interpreter' + chr(39) + 's' if ok else 'DIFFER from the interpreter'}")
    kernel = load_kernel(file, "show")
    xt = torch.from_numpy(x).cuda()
    # Triton prints an element once per thread holding a copy of it, tilec
    # once: compare the distinct lines.
    triton = set(triton_stdout(lambda: kernel[(2,)](xt, 3)).splitlines())
    ours = set(lines["cuda"])
    print(f"device_print Triton: {len(triton)} distinct lines, "
          f"{len(triton & ours)} of them also tilec's")
    for line in sorted(triton - ours)[:6]:
        print(f"  only Triton: {line!r}")
    for line in sorted(ours - triton)[:6]:
        print(f"  only tilec:  {line!r}")
    rc, out, err = run_printing(base + ["--kernel", "check", "--debug", "--backend", "cuda",
                                        "-o", os.path.join(workdir, "assert")])
    stopped = rc != 0 and "x must not be negative" in out + err
    print(f"device_assert tilec cuda: {'stops the kernel with its message' if stopped else 'DID NOT STOP'}")
    print("  " + "\n  ".join((out + err).strip().splitlines()[-3:]))
    return ok and stopped


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-run", required=True)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as workdir:
        ok &= case_random(args, workdir)
        ok &= case_libdevice(args, workdir)
        ok &= case_shapes(args, workdir)
        ok &= case_print(args, workdir)
        ok &= case_blocks(args, workdir)
        ok &= case_arg_reductions(args, workdir)
        ok &= case_combine(args, workdir)
        ok &= case_sort(args, workdir)
        ok &= case_unsigned(args, workdir)
        ok &= case_fp8(args, workdir)
    print("random numbers, libdevice, shapes, prints, block pointers, "
          "arg-reductions, combine functions, sorts, histograms, unsigned "
          "dtypes and fp8 agree "
          "with Triton" if ok
          else "THE LANGUAGE DIFFERS FROM TRITON")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
