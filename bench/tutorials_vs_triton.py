#!/usr/bin/env python3
"""Triton's own tutorial kernels, unchanged, by Triton and by tilec (on the
GPU and on the interpreter, through tile-run) on the same inputs.

The kernels are read at run time from a Triton checkout's python/tutorials
(--tutorials DIR); none of their code is part of tilec. Triton gets a
module of each file's @triton.jit functions (the tutorial's host code,
which runs tests and benchmarks at import, left out; autotune decorators
dropped for fixed configurations); tilec compiles the file itself.

    python3 bench/tutorials_vs_triton.py --tile-run build/bin/tile-run \\
        --tutorials ~/triton/python/tutorials
"""
import argparse
import ast
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

from dot_differential import accumulation_bound

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def jit_module(path, workdir):
    """The file's imports, module-level constexprs and @triton.jit
    functions (with a plain @triton.jit), importable without the rest."""
    tree = ast.parse(open(path).read())
    keep = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            if all(a.name in ("triton", "triton.language", "math") for a in node.names):
                keep.append(node)
        elif isinstance(node, ast.ImportFrom):
            # The language only: tools of other Triton versions may be gone.
            if (node.module or "").startswith("triton.language") or node.module == "triton":
                keep.append(node)
        elif isinstance(node, ast.Assign) and "constexpr" in ast.unparse(node.value):
            keep.append(node)
        elif isinstance(node, ast.FunctionDef) and any(
                "jit" in ast.unparse(d) for d in node.decorator_list):
            node.decorator_list = [ast.parse("triton.jit").body[0].value]
            keep.append(node)
    name = "tutorial_" + os.path.basename(path).replace("-", "_").replace(".py", "")
    out = os.path.join(workdir, name + ".py")
    with open(out, "w") as f:
        f.write(ast.unparse(ast.Module(body=keep, type_ignores=[])))
    spec = importlib.util.spec_from_file_location(name, out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Desc:
    """A tensor descriptor argument: Triton gets a TensorDescriptor of the
    array, tilec its base, shape and strides (a `tensordesc` parameter)."""

    def __init__(self, array, block):
        self.array, self.block = array, list(block)

    def dtype(self):
        return {np.dtype(np.float16): "fp16", np.dtype(np.float32): "fp32"}[self.array.dtype]

    def triton(self):
        from triton.tools.tensor_descriptor import TensorDescriptor
        return TensorDescriptor.from_tensor(torch.from_numpy(self.array).cuda(), self.block)


class Table:
    """A table of addresses (08-grouped-gemm's group_*_ptrs): for Triton an
    int64 tensor of the addresses of the launch's own copies of `arrays`,
    for tile-run table:a.npy,b.npy,..."""

    def __init__(self, arrays):
        self.arrays = arrays


def device_args(params):
    """Each launch's arguments on the GPU (fresh copies), and what to read
    back by parameter name: a tensor, or a Table's list of tensors."""
    launch, buffers = [], {}
    for name, value in params:
        if isinstance(value, Table):
            buffers[name] = [torch.from_numpy(a.copy()).cuda() for a in value.arrays]
            launch.append(torch.tensor([t.data_ptr() for t in buffers[name]],
                                       dtype=torch.int64, device="cuda"))
        elif isinstance(value, np.ndarray):
            buffers[name] = torch.from_numpy(value.copy()).cuda()
            launch.append(buffers[name])
        elif isinstance(value, Desc):
            launch.append(value.triton())
            buffers[name] = launch[-1].base
        else:
            launch.append(value)
    return launch, buffers


def read_back(buffers):
    torch.cuda.synchronize()
    return {name: [t.cpu().numpy() for t in b] if isinstance(b, list) else b.cpu().numpy()
            for name, b in buffers.items()}


def parameter_names(path, kernel):
    """The parameters of the function `kernel` of the file, in order."""
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [a.arg for a in node.args.args]
    raise RuntimeError(f"no function {kernel} in {path}")


def tile_run(args, path, kernel, backend, grid, params, constexprs, workdir):
    """Runs `kernel` of the tutorial file with tile-run; returns the
    buffers it leaves, by parameter name."""
    out = os.path.join(workdir, backend)
    command = [args.tile_run, path, "--kernel", kernel, "--grid",
               ",".join(map(str, grid)), "--backend", backend, "-o", out]
    for name, value in constexprs.items():
        command += ["-D", f"{name}={value}"]
    descriptors = {name: f"tensordesc<{value.dtype()}{value.block}>"
                   for name, value in params if isinstance(value, Desc)}
    for name, value in params:
        if isinstance(value, Desc):
            file = os.path.join(workdir, name + ".npy")
            np.save(file, value.array)
            strides = [s // value.array.itemsize for s in value.array.strides]
            command += [file] + [str(d) for d in value.array.shape + tuple(strides)]
        elif isinstance(value, np.ndarray):
            file = os.path.join(workdir, name + ".npy")
            np.save(file, value)
            command.append(file)
        elif isinstance(value, Table):
            files = [os.path.join(workdir, f"{name}.{i}.npy") for i in range(len(value.arrays))]
            for file, array in zip(files, value.arrays):
                np.save(file, array)
            command.append("table:" + ",".join(files))
        else:
            command.append(repr(value) if isinstance(value, float) else str(value))
    if descriptors:
        # One entry per parameter: the descriptors' types, the rest left to
        # their arguments and -D.
        command += ["--signature", ", ".join(descriptors.get(name, "")
                                             for name in parameter_names(path, kernel))]
    env = dict(os.environ)
    libdevice = triton_libdevice()
    if libdevice:
        env["TILEC_LIBDEVICE"] = libdevice
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        raise RuntimeError(result.stderr.strip().splitlines()[-1] if result.stderr else "tile-run failed")
    got = {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}
    for name, value in params:
        if isinstance(value, Table):
            got[name] = [got[f"{name}.{i}"] for i in range(len(value.arrays))]
    return got


def triton_libdevice():
    import triton
    for directory, _, files in os.walk(os.path.dirname(triton.__file__)):
        if "libdevice.10.bc" in files:
            return os.path.join(directory, "libdevice.10.bc")
    return None


def e4m3_values():
    """The value of each float8e4nv code (NaN for 0x7F and 0xFF)."""
    codes = np.arange(256)
    exponent, mantissa = (codes >> 3) & 0xF, codes & 0x7
    value = np.where(exponent == 0, mantissa / 8 * 2.0 ** -6,
                     (1 + mantissa / 8) * 2.0 ** (exponent - 7))
    value = np.where(codes & 0x80, -value, value)
    return np.where((codes & 0x7F) == 0x7F, np.nan, value)


def fp8_window(a, b, k):
    """The codes lo, hi of a @ b.T for float8e4nv codes a, b: the exact
    products rounded once, widened by the error Hopper's fp8 wgmma
    accumulator may add (dot_differential's accumulation_bound)."""
    va, vb = e4m3_values()[a], e4m3_values()[b]
    exact, magnitude = va @ vb.T, np.abs(va) @ np.abs(vb).T
    err = accumulation_bound(k, ("fp8e4nv",)) * magnitude
    return to_e4m3(exact - err), to_e4m3(exact + err)


def e4m3_order(codes):
    """float8e4nv codes as their places on the number line (one step apart)."""
    return np.where(codes & 0x80, -(codes.astype(np.int64) & 0x7F), codes & 0x7F)


def to_e4m3(x):
    """float64 to float8e4nv codes, rounded to nearest (ties to an even
    code) and saturated to +-448, as cvt.rn.satfinite does."""
    values = e4m3_values()
    finite = np.flatnonzero(~np.isnan(values) & ~((values == 0) & (np.arange(256) >= 128)))
    order = finite[np.argsort(values[finite])]
    ladder = values[order]
    x = np.clip(x, ladder[0], ladder[-1])
    hi = np.clip(np.searchsorted(ladder, x), 1, len(ladder) - 1)
    lo = hi - 1
    below, above = x - ladder[lo], ladder[hi] - x
    pick = np.where(below < above, lo, np.where(above < below, hi,
                    np.where(order[lo] % 2 == 0, lo, hi)))
    return order[pick].astype(np.uint8)


def compare(name, got, want, tolerance):
    flat = lambda arrays: np.concatenate([a.ravel() for a in arrays])
    if isinstance(want, list) and isinstance(want[0], tuple):  # windows of a Table
        good, text = compare(name, flat(got), (flat(w[0] for w in want),
                                               flat(w[1] for w in want)), tolerance)
        return good, f"{len(want)} arrays: {text}"
    if isinstance(want, list):  # a Table's arrays, all together
        good, text = compare(name, flat(got), flat(want), tolerance)
        return good, f"{len(want)} arrays: {text}"
    if isinstance(want, tuple):  # float8e4nv codes within a window [lo, hi]
        g = e4m3_order(got.reshape(want[0].shape))
        steps = np.maximum(e4m3_order(want[0]) - g, 0) + np.maximum(g - e4m3_order(want[1]), 0)
        good = int(steps.max()) <= tolerance
        return good, (f"{int((steps > 0).sum())} of {steps.size} float8 values "
                      f"{int(steps.max())} step outside" + ("" if good else "  <-- FAIL"))
    if want.dtype == np.uint8 and tolerance:  # float8e4nv bits, `tolerance` steps apart
        steps = np.abs(e4m3_order(got.reshape(want.shape)) - e4m3_order(want))
        good = int(steps.max()) <= tolerance
        return good, (f"{int((steps > 0).sum())} of {steps.size} float8 values "
                      f"{int(steps.max())} step apart" + ("" if good else "  <-- FAIL"))
    got = got.reshape(want.shape).astype(np.float64)
    want = want.astype(np.float64)
    if tolerance == 0:
        same = np.array_equal(got, want, equal_nan=True)
        return same, "identical" if same else "DIFFER"
    scale = max(1.0, float(np.nanmax(np.abs(want))))
    err = float(np.nanmax(np.abs(got - want))) / scale
    return err <= tolerance, f"max error {err:.2e} of max |x|" + ("" if err <= tolerance else "  <-- FAIL")


def cases(rng):
    """(file, kernel, grid, [(param, value)], constexprs, outputs, tolerance)"""
    f16 = lambda *s: rng.standard_normal(s).astype(np.float16)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    n = 98432
    yield ("01-vector-add.py", "add_kernel", (97,),
           [("x_ptr", f32(n)), ("y_ptr", f32(n)), ("output_ptr", np.zeros(n, np.float32)), ("n_elements", n)],
           {"BLOCK_SIZE": 1024}, ["output_ptr"], 0)
    R, C = 1823, 781
    yield ("02-fused-softmax.py", "softmax_kernel", (132,),
           [("output_ptr", np.zeros((R, C), np.float32)), ("input_ptr", f32(R, C)),
            ("input_row_stride", C), ("output_row_stride", C), ("n_rows", R), ("n_cols", C)],
           {"BLOCK_SIZE": 1024, "num_stages": 4}, ["output_ptr"], 1e-6)
    M, N, K = 512, 384, 256
    for activation in ("leaky_relu", ""):
        yield ("03-matrix-multiplication.py", "matmul_kernel", (4 * 3,),
               [("a_ptr", f16(M, K)), ("b_ptr", f16(K, N)), ("c_ptr", np.zeros((M, N), np.float16)),
                ("M", M), ("N", N), ("K", K), ("stride_am", K), ("stride_ak", 1),
                ("stride_bk", N), ("stride_bn", 1), ("stride_cm", N), ("stride_cn", 1)],
               {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                "ACTIVATION": f"'{activation}'"}, ["c_ptr"], 2e-3)
    keep = (rng.random(8000) > 0.5).astype(np.int32)
    yield ("04-low-memory-dropout.py", "_dropout", (8,),
           [("x_ptr", f32(8000)), ("x_keep_ptr", keep), ("output_ptr", np.zeros(8000, np.float32)),
            ("n_elements", 8000), ("p", 0.5)], {"BLOCK_SIZE": 1024}, ["output_ptr"], 0)
    yield ("04-low-memory-dropout.py", "_seeded_dropout", (8,),
           [("x_ptr", f32(8000)), ("output_ptr", np.zeros(8000, np.float32)), ("n_elements", 8000),
            ("p", 0.5), ("seed", 123)], {"BLOCK_SIZE": 1024}, ["output_ptr"], 0)
    R, C = 1151, 8192
    yield ("05-layer-norm.py", "_layer_norm_fwd_fused", (R,),
           [("X", f16(R, C)), ("Y", np.zeros((R, C), np.float16)), ("W", f16(C)), ("B", f16(C)),
            ("Mean", np.zeros(R, np.float32)), ("Rstd", np.zeros(R, np.float32)),
            ("stride", C), ("N", C), ("eps", 1e-5)], {"BLOCK_SIZE": 8192},
           ["Y", "Mean", "Rstd"], 2e-3)
    R, C, G = 256, 1024, 16
    yield ("05-layer-norm.py", "_layer_norm_bwd_dx_fused", (R,),
           [("DX", np.zeros((R, C), np.float16)), ("DY", f16(R, C)),
            ("DW", np.zeros((G, C), np.float32)), ("DB", np.zeros((G, C), np.float32)),
            ("X", f16(R, C)), ("W", f16(C)),
            ("Mean", (0.1 * f32(R)).astype(np.float32)),
            ("Rstd", (1 + 0.1 * np.abs(f32(R))).astype(np.float32)),
            ("Lock", np.zeros(2 * G, np.int32)), ("stride", C), ("N", C)],
           {"GROUP_SIZE_M": G, "BLOCK_SIZE_N": 1024}, ["DX", "DW", "DB"], 2e-3)
    yield ("05-layer-norm.py", "_layer_norm_bwd_dwdb", (C // 128,),
           [("DW", f32(G, C)), ("DB", f32(G, C)), ("FINAL_DW", np.zeros(C, np.float16)),
            ("FINAL_DB", np.zeros(C, np.float16)), ("M", G), ("N", C)],
           {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128}, ["FINAL_DW", "FINAL_DB"], 2e-3)
    yield ("07-extern-functions.py", "asin_kernel", (98,),
           [("x_ptr", rng.uniform(-1, 1, 98432).astype(np.float32)),
            ("y_ptr", np.zeros(98432, np.float32)), ("n_elements", 98432)],
           {"BLOCK_SIZE": 1024}, ["y_ptr"], (0, 1e-6))
    M, N, K = 512, 256, 384
    yield ("08-experimental-block-pointer.py", "matmul_kernel_with_block_pointers", (4 * 2,),
           [("a_ptr", f16(M, K)), ("b_ptr", f16(K, N)), ("c_ptr", np.zeros((M, N), np.float16)),
            ("M", M), ("N", N), ("K", K), ("stride_am", K), ("stride_ak", 1),
            ("stride_bk", N), ("stride_bn", 1), ("stride_cm", N), ("stride_cn", 1)],
           {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
           ["c_ptr"], 2e-3)
    # 08-grouped-gemm: problems of whole tiles (the kernels assume them),
    # addressed through tables; 4 programs walk the 10 tiles.
    sizes = [(256, 256, 128), (128, 384, 64), (384, 128, 256)]
    size_table = np.array(sizes, np.int32)
    groups = [(f16(m, k), f16(k, n), np.zeros((m, n), np.float16)) for m, n, k in sizes]
    yield ("08-grouped-gemm.py", "grouped_matmul_kernel", (4,),
           [("group_a_ptrs", Table([a for a, _, _ in groups])),
            ("group_b_ptrs", Table([b for _, b, _ in groups])),
            ("group_c_ptrs", Table([c for _, _, c in groups])),
            ("group_gemm_sizes", size_table),
            ("g_lds", np.array([(k, n, n) for m, n, k in sizes], np.int32)),
            ("group_size", len(sizes))],
           {"NUM_SM": 4, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32},
           ["group_c_ptrs"], 2e-3)
    # The descriptor kernel takes B transposed, as the tutorial passes it;
    # FP8 reads and writes float8e4nv bits.
    fp8 = lambda *s: rng.choice([b for b in range(256) if b & 0x7F not in (0x7F,) and
                                 (b >> 3) & 0xF < 9], size=s).astype(np.uint8)
    for fp8_output in (False, True):
        make = fp8 if fp8_output else f16
        out = np.uint8 if fp8_output else np.float16
        groups = [(make(m, k), make(n, k), np.zeros((m, n), out)) for m, n, k in sizes]
        # FP8: against the exact products rounded once, widened by what
        # Hopper's fp8 wgmma accumulator may lose (both compilers use it on
        # sm_90a; the interpreter sums exactly).
        exact = {"group_c_ptrs": [fp8_window(a, b, k) for (a, b, _), (_, _, k)
                                  in zip(groups, sizes)]} if fp8_output else None
        yield ("08-grouped-gemm.py", "grouped_matmul_tma_kernel", (4,),
               [("group_a_ptrs", Table([a for a, _, _ in groups])),
                ("group_b_ptrs", Table([b for _, b, _ in groups])),
                ("group_c_ptrs", Table([c for _, _, c in groups])),
                ("group_gemm_sizes", size_table),
                ("g_lds", np.array([(k, k, n) for m, n, k in sizes], np.int32)),
                ("group_size", len(sizes))],
               {"NUM_SM": 4, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                "FP8": fp8_output}, ["group_c_ptrs"],
               # float8e4nv: at most one step outside the window.
               *((1, exact) if fp8_output else (2e-3,)))
    for kernel, grid, extra in (("matmul_kernel", (4 * 2,), {}),
                                ("matmul_kernel_persistent", (6,), {"NUM_SMS": 6})):
        yield ("09-persistent-matmul.py", kernel, grid,
               [("a_ptr", f16(M, K)), ("b_ptr", f16(K, N)), ("c_ptr", np.zeros((M, N), np.float16)),
                ("M", M), ("N", N), ("K", K), ("stride_am", K), ("stride_ak", 1),
                ("stride_bk", N), ("stride_bn", 1), ("stride_cm", N), ("stride_cn", 1)],
               dict({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                     "GROUP_SIZE_M": 8}, **extra), ["c_ptr"], 2e-3)
    # Triton 3.6's tutorial 09 with descriptors: from the host (TMA in
    # Triton, b given transposed as the tutorial does) and made in the kernel.
    a, bt = f16(M, K), f16(N, K)
    for kernel, grid, extra in (
            ("matmul_kernel_tma", (4 * 2,), {}),
            ("matmul_kernel_tma_persistent", (6,),
             {"NUM_SMS": 6, "EPILOGUE_SUBTILE": True}),
            ("matmul_kernel_tma_persistent", (6,),
             {"NUM_SMS": 6, "EPILOGUE_SUBTILE": False})):
        yield ("09-persistent-matmul.py", kernel, grid,
               [("a_desc", Desc(a, [128, 64])), ("b_desc", Desc(bt, [128, 64])),
                ("c_desc", Desc(np.zeros((M, N), np.float16),
                                [128, 64 if extra.get("EPILOGUE_SUBTILE") else 128])),
                ("M", M), ("N", N), ("K", K)],
               dict({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                     "GROUP_SIZE_M": 8, "FP8_OUTPUT": False, "WARP_SPECIALIZE": False},
                    **extra), ["c_desc"], 2e-3)
    for flatten in (True, False):
        yield ("09-persistent-matmul.py", "matmul_kernel_descriptor_persistent", (6,),
               [("a_ptr", a), ("b_ptr", bt), ("c_ptr", np.zeros((M, N), np.float16)),
                ("M", M), ("N", N), ("K", K)],
               {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                "GROUP_SIZE_M": 8, "EPILOGUE_SUBTILE": flatten, "NUM_SMS": 6,
                "WARP_SPECIALIZE": False, "FLATTEN": flatten}, ["c_ptr"], 2e-3)
    Z, H, NCTX, D = 1, 2, 256, 64
    q, k, v = f16(Z, H, NCTX, D), f16(Z, H, NCTX, D), f16(Z, H, NCTX, D)
    rows = lambda x: x.reshape(Z * H * NCTX, D)
    for causal in (True, False):
        for descriptors in (True, False):
            # The tutorial passes TensorDescriptors where the host can make
            # them, else the tensors (the kernel makes the descriptors).
            wrap = (lambda x, block: Desc(rows(x), block)) if descriptors else \
                (lambda x, block: rows(x))
            params = [("sm_scale", 0.5), ("M", np.zeros((Z, H, NCTX), np.float32)),
                      ("Z", Z), ("H", H),
                      ("desc_q", wrap(q, [64, D])), ("desc_k", wrap(k, [64, D])),
                      ("desc_v", wrap(v, [64, D])),
                      ("desc_o", wrap(np.zeros((Z, H, NCTX, D), np.float16), [64, D])),
                      ("N_CTX", NCTX)]
            yield ("06-fused-attention.py", "_attn_fwd", (NCTX // 64, Z * H),
                   params, {"HEAD_DIM": D, "BLOCK_M": 64, "BLOCK_N": 64,
                            "FP8_OUTPUT": False, "STAGE": 3 if causal else 1,
                            "warp_specialize": False, "IS_HOPPER": True},
                   ["desc_o"], 2e-2,
                   {"desc_o": rows(attention_reference(q, k, v, 0.5, causal)["Out"])})
    o, do = f16(Z, H, NCTX, D), f16(Z, H, NCTX, D)
    yield ("06-fused-attention.py", "_attn_bwd_preprocess", (NCTX // 128, Z * H),
           [("O", o), ("DO", do), ("Delta", np.zeros((Z, H, NCTX), np.float32)),
            ("Z", Z), ("H", H), ("N_CTX", NCTX)], {"BLOCK_M": 128, "HEAD_DIM": D},
           ["Delta"], 1e-5)
    scale = lambda a: (a * np.float16(0.3)).astype(np.float16)
    for causal in (False, True):
        yield ("06-fused-attention.py", "_attn_bwd", (NCTX // 128, 1, Z * H),
               [("Q", scale(q)), ("K", scale(k)), ("V", v), ("sm_scale", 0.5), ("DO", do),
                ("DQ", np.zeros((Z, H, NCTX, D), np.float32)),
                ("DK", np.zeros((Z, H, NCTX, D), np.float32)),
                ("DV", np.zeros((Z, H, NCTX, D), np.float32)),
                ("M", (4 + f32(Z, H, NCTX)).astype(np.float32)),
                ("D", (0.1 * f32(Z, H, NCTX)).astype(np.float32)),
                ("stride_z", H * NCTX * D), ("stride_h", NCTX * D), ("stride_tok", D),
                ("stride_d", 1), ("H", H), ("N_CTX", NCTX)],
               {"BLOCK_M1": 32, "BLOCK_N1": 128, "BLOCK_M2": 128, "BLOCK_N2": 32,
                "BLK_SLICE_FACTOR": 2, "HEAD_DIM": D, "CAUSAL": causal},
               ["DQ", "DK", "DV"], 2e-2)


def attention_reference(q, k, v, sm_scale, causal):
    """softmax(q k^T sm_scale) v in float64, for when Triton cannot compile
    the tutorial's version of the kernel."""
    s = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return {"Out": np.einsum("zhmn,zhnd->zhmd", p, v.astype(np.float64))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--tutorials", required=True)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    import triton
    # Descriptors made in a kernel need Triton's global scratch.
    triton.set_allocator(lambda size, align, stream:
                         torch.empty(size, dtype=torch.int8, device="cuda"))
    ok = True
    with tempfile.TemporaryDirectory() as workdir:
        modules = {}
        for file, kernel, grid, params, constexprs, outputs, tolerance, *reference in cases(rng):
            path = os.path.join(args.tutorials, file)
            label = f"{file[:2]} {kernel}" + (f" {constexprs.get('ACTIVATION', '')}"
                                              if "ACTIVATION" in constexprs else "") + \
                (f" CAUSAL={constexprs['CAUSAL']}" if "CAUSAL" in constexprs else "") + \
                (f" STAGE={constexprs['STAGE']}" if "STAGE" in constexprs else "") + \
                (" desc" if any(isinstance(v, Desc) for _, v in params) else "") + \
                (f" SUBTILE={constexprs['EPILOGUE_SUBTILE']}" if "EPILOGUE_SUBTILE" in constexprs else "") + \
                (f" FP8={constexprs['FP8']}" if "FP8" in constexprs else "")
            # Tutorials come and go between Triton's versions (08's block
            # pointers left before 3.6): a file the checkout lacks is skipped.
            if not os.path.exists(path):
                print(f"{label:45s} skipped: {file} is not in this checkout")
                continue
            try:
                if file not in modules:
                    modules[file] = jit_module(path, workdir)
                fn = getattr(modules[file], kernel)
                launch, buffers = device_args(params)
                tconst = {k: (v.strip("'") if isinstance(v, str) else v) for k, v in constexprs.items()}
                fn[grid](*launch, **tconst)
                triton = read_back(buffers)
            except Exception as e:  # noqa: BLE001 - reported per case
                print(f"{label:45s} Triton failed: {str(e).splitlines()[0][:120]}")
                if not reference:
                    ok = False
                    continue
                print(f"{label:45s} (compared with a float64 reference instead)")
                triton = reference[0]
            for backend in ("cuda", "interp"):
                try:
                    got = tile_run(args, path, kernel, backend, grid, params,
                                   {k: v for k, v in constexprs.items()}, workdir)
                except RuntimeError as e:
                    print(f"{label:45s} tilec {backend:6s} failed: {str(e)[:160]}")
                    ok = False
                    continue
                for name in outputs:
                    limit = tolerance[backend == "interp"] if isinstance(tolerance, tuple) else tolerance
                    if isinstance(limit, int) and reference:
                        # Steps outside the exact window, Triton's for comparison.
                        if backend == "cuda":
                            print(f"{label:45s} Triton       {name:10s} "
                                  f"{compare(name, triton[name], reference[0][name], 255)[1]}"
                                  " (exact)")
                        good, text = compare(name, got[name], reference[0][name], limit)
                        text += " (exact)"
                    else:
                        good, text = compare(name, got[name], triton[name], limit)
                    ok &= good
                    print(f"{label:45s} tilec {backend:6s} {name:10s} {text}")
    print("tutorial kernels agree with Triton" if ok else "TUTORIAL KERNELS DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
