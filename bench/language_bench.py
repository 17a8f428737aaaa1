#!/usr/bin/env python3
"""Softmax, layer norm (forward) and attention forward: tilec against real
Triton on the same .tl files (test/Triton/softmax.tl, layer_norm.tl,
attention.tl), in one run. GB/s for the memory-bound two, TFLOP/s for
attention, and the ratio tilec/Triton. Attention runs at head dims 64, 128
and 256, and grouped-query (attention_gqa: 32 query heads over 8 of keys
and values, head dim 128), fp8 (attention_fp8: e4m3, V given transposed as
Triton's tutorial gives it), causal or not, N_CTX 1024 to 16384; its
backward (attention_bwd: the tutorial's three kernels timed as one);
beside them torch's scaled_dot_product_attention and its backward, with
the kernel torch picked (its backend: cuDNN, FlashAttention or
memory-efficient; fp16 where tilec's inputs are fp8). `--only attention`
runs all four.

Every shape is run over a small sweep of launch configurations (warps,
grid, blocks, stages), the same launch for both: each row is tilec and
Triton at one configuration, and each shape's summary is tilec's best with
Triton at the same configuration and Triton's own best. Outputs of both are
checked against torch (into buffers poisoned with NaN) before timing. Each
figure is the median of --rounds do_bench runs (L2 flushed before every
launch) taken in turn with the other's; the spread is (max - min) / median
of those runs. A configuration that one of them cannot compile or run is a
row that says so.

Bytes are what the kernel must move at least: softmax reads and writes the
matrix; layer norm reads X, W and B and writes Y, Mean and Rstd (its second
and third passes over a row re-read it from cache). FLOPs are counted as
Triton's attention tutorial counts them: 4 * B * H * N_CTX^2 * HEAD_DIM,
halved when causal.

    python3 bench/language_bench.py [--tilec build/bin/tilec] [--json out.json]
                                    [--quick] [--only softmax,attention]
    python3 bench/language_bench.py --compile-only   # no GPU: tilec + ptxas
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from harness import (CompileError, Constexpr, Pointer, compile_tl,  # noqa: E402
                     entry_args, kernel_params, signature)

KERNELS = os.path.join(ROOT, "test", "Triton")
TORCH_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def cdiv(a, b):
    return -(-a // b)


class Softmax:
    """softmax_kernel: rows of an M x N matrix, fp32 or fp16 in and out."""
    name, file, kernel, unit = "softmax", "softmax.tl", "softmax_kernel", "GB/s"

    def shapes(self, quick):
        ns = (4096, 16384) if quick else (1024, 2048, 3000, 4096, 8192, 16384)
        return [{"dtype": d, "M": 4096, "N": n} for d in ("fp32", "fp16") for n in ns]

    def configs(self, shape, quick):
        # One row per program (the hardware balances), or the tutorial's
        # persistent form: a few programs per SM walking rows.
        configs = [{"warps": w, "programs": "rows"} for w in (4, 8, 16)]
        configs.append({"warps": 8, "programs": "4 per SM"})
        return configs[1:3] if quick else configs

    def label(self, shape):
        return f"softmax {shape['dtype']} {shape['M']}x{shape['N']}"

    def inputs(self, torch, shape):
        dtype = getattr(torch, TORCH_DTYPES[shape["dtype"]])
        x = torch.randn(shape["M"], shape["N"], device="cuda", dtype=dtype)
        return {"x": x, "y": torch.empty_like(x)}

    def placeholders(self, shape):
        return {"x": Pointer(shape["dtype"]), "y": Pointer(shape["dtype"])}

    def values(self, shape, config, data):
        return {"out_ptr": data["y"], "in_ptr": data["x"],
                "in_row_stride": shape["N"], "out_row_stride": shape["N"],
                "n_rows": shape["M"], "n_cols": shape["N"],
                "BLOCK_SIZE": Constexpr(next_pow2(shape["N"]))}

    def grid(self, shape, config, sms):
        if config["programs"] == "rows":
            return (shape["M"],)
        return (min(shape["M"], sms * int(config["programs"].split()[0])),)

    def amount(self, shape):
        return 2 * shape["M"] * shape["N"] * (4 if shape["dtype"] == "fp32" else 2)

    def outputs(self, shape):
        tol = (1e-5, 1e-4) if shape["dtype"] == "fp32" else (2e-3, 1e-2)
        return {"y": tol}

    def reference(self, torch, shape, data):
        return {"y": torch.softmax(data["x"].float(), dim=1)}

    def torch_launch(self, torch, shape, data):
        return lambda: torch.softmax(data["x"], dim=1)


class LayerNorm:
    """layer_norm_fwd: fp16 rows with fp16 weights and biases, fp32 mean
    and 1/std."""
    name, file, kernel, unit = "layer_norm", "layer_norm.tl", "layer_norm_fwd", "GB/s"
    eps = 1e-5

    def shapes(self, quick):
        ns = (4096, 16384) if quick else (1024, 2048, 4096, 8192, 16384)
        return [{"dtype": "fp16", "M": 4096, "N": n} for n in ns]

    def configs(self, shape, quick):
        # The tutorial's: the whole row in one block, min(max(BLOCK / 256,
        # 1), 8) warps; then other warps, and a row walked in 1024 chunks.
        block = next_pow2(shape["N"])
        tutorial = min(max(block // 256, 1), 8)
        configs = [{"BLOCK_SIZE": block, "warps": tutorial}]
        configs += [{"BLOCK_SIZE": block, "warps": w} for w in (4, 8, 16) if w != tutorial]
        if block > 1024:
            configs.append({"BLOCK_SIZE": 1024, "warps": 4})
        return configs[:2] if quick else configs

    def label(self, shape):
        return f"layer norm {shape['dtype']} {shape['M']}x{shape['N']}"

    def inputs(self, torch, shape):
        dtype = getattr(torch, TORCH_DTYPES[shape["dtype"]])
        m, n = shape["M"], shape["N"]
        cuda = {"device": "cuda"}
        return {"x": torch.randn(m, n, dtype=dtype, **cuda) * 2 + 0.5,
                "y": torch.empty(m, n, dtype=dtype, **cuda),
                "w": torch.randn(n, dtype=dtype, **cuda),
                "b": torch.randn(n, dtype=dtype, **cuda),
                "mean": torch.empty(m, **cuda), "rstd": torch.empty(m, **cuda)}

    def placeholders(self, shape):
        d = shape["dtype"]
        return {"x": Pointer(d), "y": Pointer(d), "w": Pointer(d), "b": Pointer(d),
                "mean": Pointer("fp32"), "rstd": Pointer("fp32")}

    def values(self, shape, config, data):
        return {"X": data["x"], "Y": data["y"], "W": data["w"], "B": data["b"],
                "Mean": data["mean"], "Rstd": data["rstd"], "stride": shape["N"],
                "N": shape["N"], "eps": self.eps,
                "BLOCK_SIZE": Constexpr(config["BLOCK_SIZE"])}

    def grid(self, shape, config, sms):
        return (shape["M"],)

    def amount(self, shape):
        m, n = shape["M"], shape["N"]
        size = 4 if shape["dtype"] == "fp32" else 2
        return size * (2 * m * n + 2 * n) + 4 * 2 * m

    def outputs(self, shape):
        return {"y": (1e-2, 1e-2), "mean": (1e-5, 1e-5), "rstd": (1e-5, 1e-4)}

    def reference(self, torch, shape, data):
        x = data["x"].float()
        var, mean = torch.var_mean(x, dim=1, unbiased=False)
        y = torch.nn.functional.layer_norm(x, (shape["N"],), data["w"].float(),
                                           data["b"].float(), self.eps)
        return {"y": y, "mean": mean, "rstd": torch.rsqrt(var + self.eps)}

    def torch_launch(self, torch, shape, data):
        return lambda: torch.nn.functional.layer_norm(
            data["x"], (shape["N"],), data["w"], data["b"], self.eps)


class Attention:
    """attention_fwd: softmax(Q K^T sm_scale) V over [B, H, N_CTX, HEAD_DIM]
    fp16, causal or not, with each row's log-sum-exp (base 2) in L."""
    name, file, kernel, unit = "attention", "attention.tl", "attention_fwd", "TFLOP/s"

    def shapes(self, quick):
        ns = (4096,) if quick else (1024, 2048, 4096, 8192, 16384)
        # Head dims 64 and 128 (the H100's FlashAttention-3 figures), and
        # 256 at N_CTX 4096 and 16384.
        heads = ((32, 64, ns), (16, 128, ns), (8, 256, ns if quick else (4096, 16384)))
        return [{"dtype": "fp16", "B": 4, "H": h, "N_CTX": n, "HEAD_DIM": d, "causal": c}
                for h, d, sizes in heads for n in sizes for c in (False, True)]

    def configs(self, shape, quick):
        if shape["HEAD_DIM"] <= 64:
            # [128, 128] on 8 warps causal: on a producer, where two stages
            # measured best. [64, 64] on two stages: 40 KB of shared
            # memory, five CTAs an SM where three stages' 57 KB fit three
            # (causal at N_CTX 2048: 345.8 against 321.7 TFLOP/s, H200).
            blocks = [(128, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 3),
                      (64, 64, 4, 2)]
            if shape["causal"]:
                blocks.append((128, 128, 8, 2))
        elif shape["HEAD_DIM"] <= 128:
            # [128, 128] with three stages: what tilec's producer fills
            # (224 KB); Triton's shared memory may not fit it.
            blocks = [(128, 64, 8, 3), (128, 128, 8, 2), (128, 128, 8, 3), (64, 64, 4, 3)]
        else:  # what fits 227 KB of shared memory at head dim 256
            blocks = [(128, 64, 8, 2), (64, 64, 4, 2)]
        configs = [{"BLOCK_M": m, "BLOCK_N": n, "warps": w, "stages": s}
                   for m, n, w, s in blocks]
        return configs[:2] if quick else configs

    def label(self, shape):
        return (f"attention {shape['dtype']} B{shape['B']} H{shape['H']} "
                f"N_CTX {shape['N_CTX']} D{shape['HEAD_DIM']}"
                + (" causal" if shape["causal"] else ""))

    def dims(self, shape):
        return shape["B"], shape["H"], shape["N_CTX"], shape["HEAD_DIM"]

    def inputs(self, torch, shape):
        b, h, n, d = self.dims(shape)
        cuda = {"device": "cuda", "dtype": torch.float16}
        q, k, v = (torch.randn(b, h, n, d, **cuda) for _ in range(3))
        return {"q": q, "k": k, "v": v, "o": torch.empty_like(q),
                "l": torch.empty(b, h, n, device="cuda")}

    def placeholders(self, shape):
        return {"q": Pointer("fp16"), "k": Pointer("fp16"), "v": Pointer("fp16"),
                "o": Pointer("fp16"), "l": Pointer("fp32")}

    def values(self, shape, config, data):
        _, h, n, d = self.dims(shape)
        # Contiguous [B, H, N_CTX, HEAD_DIM], strides shared by all four.
        return {"Q": data["q"], "K": data["k"], "V": data["v"],
                "sm_scale": 1 / math.sqrt(d), "Out": data["o"], "L": data["l"],
                "stride_z": h * n * d, "stride_h": n * d, "stride_n": d,
                "H": h, "N_CTX": n, "HEAD_DIM": Constexpr(d),
                "BLOCK_M": Constexpr(config["BLOCK_M"]),
                "BLOCK_N": Constexpr(config["BLOCK_N"]),
                "CAUSAL": Constexpr(shape["causal"])}

    def grid(self, shape, config, sms):
        b, h, n, _ = self.dims(shape)
        return (cdiv(n, config["BLOCK_M"]), b * h)

    def amount(self, shape):
        b, h, n, d = self.dims(shape)
        return 4.0 * b * h * n * n * d * (0.5 if shape["causal"] else 1.0)

    def outputs(self, shape):
        return {"o": (1e-2, 0.0)}

    def reference(self, torch, shape, data):
        return {"o": self.torch_launch(torch, shape, data)().float()}

    # What torch's scaled_dot_product_attention is told beside the shape's.
    sdpa_options = {}

    def sdpa(self, torch, shape, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=shape["causal"], scale=1 / math.sqrt(shape["HEAD_DIM"]),
            **self.sdpa_options)

    def torch_launch(self, torch, shape, data):
        return lambda: self.sdpa(torch, shape, data["q"], data["k"], data["v"])


class GroupedAttention(Attention):
    """attention_fwd_gqa: grouped-query attention, GROUP query heads to a
    head of keys and values (Llama-3 8B's 32 and 8 at head dim 128)."""
    name, kernel = "attention_gqa", "attention_fwd_gqa"
    sdpa_options = {"enable_gqa": True}

    def shapes(self, quick):
        ns = (4096,) if quick else (2048, 4096, 8192, 16384)
        return [{"dtype": "fp16", "B": 4, "H": 32, "GROUP": 4, "N_CTX": n, "HEAD_DIM": 128,
                 "causal": c} for n in ns for c in (False, True)]

    def label(self, shape):
        return super().label(shape).replace(
            f"H{shape['H']}", f"H{shape['H']}/{shape['H'] // shape['GROUP']}")

    def inputs(self, torch, shape):
        b, h, n, d = self.dims(shape)
        cuda = {"device": "cuda", "dtype": torch.float16}
        kv = (b, h // shape["GROUP"], n, d)
        q = torch.randn(b, h, n, d, **cuda)
        return {"q": q, "k": torch.randn(*kv, **cuda), "v": torch.randn(*kv, **cuda),
                "o": torch.empty_like(q), "l": torch.empty(b, h, n, device="cuda")}

    def values(self, shape, config, data):
        values = super().values(shape, config, data)
        _, h, n, d = self.dims(shape)
        values.update(stride_kv_z=h // shape["GROUP"] * n * d, stride_kv_h=n * d,
                      GROUP=shape["GROUP"])
        return values


class Fp8Attention(Attention):
    """attention_fwd_vt on fp8 (e4m3) Q, K and V, V given transposed
    ([B, H, HEAD_DIM, N_CTX]) as Triton's tutorial gives fp8 values, so that
    both dots read their B K-major as fp8 wgmma wants; fp16 Out. torch has
    no fp8 attention: its figure is SDPA's on the same values in fp16."""
    name, kernel = "attention_fp8", "attention_fwd_vt"

    def shapes(self, quick):
        ns = (4096,) if quick else (2048, 4096, 8192, 16384)
        return [{"dtype": "fp8e4nv", "B": 4, "H": 16, "N_CTX": n, "HEAD_DIM": 128, "causal": c}
                for n in ns for c in (False, True)]

    def configs(self, shape, quick):
        blocks = [(128, 128, 8, 3), (128, 64, 8, 3), (128, 128, 8, 2), (64, 64, 4, 3)]
        configs = [{"BLOCK_M": m, "BLOCK_N": n, "warps": w, "stages": s}
                   for m, n, w, s in blocks]
        return configs[:2] if quick else configs

    def inputs(self, torch, shape):
        data = super().inputs(torch, shape)
        fp8 = {x: data[x].to(torch.float8_e4m3fn) for x in ("q", "k", "v")}
        data.update(fp8, vt=fp8["v"].transpose(2, 3).contiguous())
        return data

    def placeholders(self, shape):
        return super().placeholders(shape) | {
            x: Pointer("fp8e4nv") for x in ("q", "k", "v", "vt")}

    def values(self, shape, config, data):
        values = super().values(shape, config, data)
        _, h, n, d = self.dims(shape)
        del values["V"]
        values.update(VT=data["vt"], stride_vt_z=h * d * n, stride_vt_h=d * n, stride_vt=n)
        return values

    def outputs(self, shape):
        # P V rounds P to fp8 (3 bits of mantissa): up to 2^-4 of each
        # weight, which the first causal rows (a few keys) do not average
        # out (both compilers 0.05 from torch there).
        return {"o": (1e-1, 0.0)}

    def torch_launch(self, torch, shape, data):
        q, k, v = (data[x].to(torch.float16) for x in ("q", "k", "v"))
        return lambda: self.sdpa(torch, shape, q, k, v)


class AttentionBackward(Attention):
    """The tutorial's backward, timed as one: attention_bwd_preprocess
    (Delta = rowsum(O * dO)), attention_bwd_dkdv and attention_bwd_dq (fp32
    gradients), given the forward's Out and L. Against torch: the gradients
    of scaled_dot_product_attention's output (autograd, fp16). FLOPs as
    Triton's tutorial counts them: 2.5 times the forward's."""
    name, unit = "attention_bwd", "TFLOP/s"
    kernel = "attention_bwd_preprocess, attention_bwd_dkdv, attention_bwd_dq"
    PREPROCESS_BLOCK = 128

    def shapes(self, quick):
        ns = (4096,) if quick else (1024, 4096, 8192)
        return [{"dtype": "fp16", "B": 4, "H": h, "N_CTX": n, "HEAD_DIM": d, "causal": c}
                for h, d in ((32, 64), (16, 128)) for n in ns for c in (False, True)]

    def configs(self, shape, quick):
        # dk/dv's program owns BLOCK_N1 keys and walks the queries BLOCK_M1
        # at a time, dq's owns BLOCK_M2 queries and walks the keys BLOCK_N2
        # at a time; the first is Triton's tutorial's (32, 128, 128, 32, 4
        # warps, 5 stages).
        blocks = [(32, 128, 128, 32, 4, 5), (64, 64, 64, 64, 4, 3), (64, 128, 128, 64, 8, 2)]
        configs = [{"BLOCK_M1": m1, "BLOCK_N1": n1, "BLOCK_M2": m2, "BLOCK_N2": n2,
                    "warps": w, "stages": s} for m1, n1, m2, n2, w, s in blocks]
        return configs[:1] if quick else configs

    def label(self, shape):
        return super().label(shape).replace("attention", "attention backward", 1)

    def inputs(self, torch, shape):
        b, h, n, d = self.dims(shape)
        cuda = {"device": "cuda", "dtype": torch.float16}
        q, k, v, do = (torch.randn(b, h, n, d, **cuda) for _ in range(4))
        scale = 1 / math.sqrt(d)
        o = self.sdpa(torch, shape, q, k, v)
        # L = log2 of each row's sum of exp2 of the scaled scores, a block
        # of queries at a time (the scores of all are too many bytes).
        lse = torch.empty(b, h, n, device="cuda")
        for start in range(0, n, 1024):
            scores = torch.einsum("bhmd,bhnd->bhmn", q[:, :, start:start + 1024].float(),
                                  k.float()) * scale
            if shape["causal"]:
                rows = torch.arange(start, min(start + 1024, n), device="cuda")[:, None]
                scores.masked_fill_(rows < torch.arange(n, device="cuda")[None, :],
                                    float("-inf"))
            lse[:, :, start:start + 1024] = torch.logsumexp(scores, -1)
            del scores
        return {"q": q, "k": k, "v": v, "do": do, "o": o, "l": lse * 1.4426950408889634,
                "delta": torch.empty(b, h, n, device="cuda"),
                **{grad: torch.empty(b, h, n, d, device="cuda") for grad in ("dq", "dk", "dv")}}

    def placeholders(self, shape):
        return {name: Pointer("fp16") for name in ("q", "k", "v", "do", "o")} | {
            name: Pointer("fp32") for name in ("l", "delta", "dq", "dk", "dv")}

    def steps(self, shape, config, data):
        b, h, n, d = self.dims(shape)

        def blocks(block_m, block_n):
            return {"HEAD_DIM": Constexpr(d), "BLOCK_M": Constexpr(config[block_m]),
                    "BLOCK_N": Constexpr(config[block_n]), "CAUSAL": Constexpr(shape["causal"])}
        common = {"Q": data["q"], "K": data["k"], "V": data["v"], "sm_scale": 1 / math.sqrt(d),
                  "DO": data["do"], "L": data["l"], "Delta": data["delta"],
                  "stride_z": h * n * d, "stride_h": n * d, "stride_n": d, "H": h, "N_CTX": n}
        preprocess = {"O": data["o"], "DO": data["do"], "Delta": data["delta"], "N_CTX": n,
                      "HEAD_DIM": Constexpr(d), "BLOCK_M": Constexpr(self.PREPROCESS_BLOCK)}
        return [("attention_bwd_preprocess", preprocess,
                 (cdiv(n, self.PREPROCESS_BLOCK), b * h), {"warps": 4}),
                ("attention_bwd_dkdv",
                 common | blocks("BLOCK_M1", "BLOCK_N1") | {"DK": data["dk"], "DV": data["dv"]},
                 (cdiv(n, config["BLOCK_N1"]), b * h), config),
                ("attention_bwd_dq", common | blocks("BLOCK_M2", "BLOCK_N2") | {"DQ": data["dq"]},
                 (cdiv(n, config["BLOCK_M2"]), b * h), config)]

    def amount(self, shape):
        return 2.5 * super().amount(shape)

    def outputs(self, shape):
        return {name: (5e-2, 2e-2) for name in ("dq", "dk", "dv")}

    def reference(self, torch, shape, data):
        return dict(zip(("dq", "dk", "dv"), self.torch_launch(torch, shape, data)()))

    def torch_launch(self, torch, shape, data):
        q, k, v = (data[x].detach().requires_grad_() for x in ("q", "k", "v"))
        o = self.sdpa(torch, shape, q, k, v)
        return lambda: torch.autograd.grad(o, (q, k, v), data["do"], retain_graph=True)


WORKLOADS = [Softmax(), LayerNorm(), Attention(), GroupedAttention(), Fp8Attention(),
             AttentionBackward()]


def ordered(file, kernel, by_name):
    """`kernel`'s arguments in its parameter order, by name, checked
    against its parameter list (read from the .tl file)."""
    params = kernel_params(os.path.join(KERNELS, file), kernel)
    missing = [p for p, _ in params if p not in by_name]
    wrong = [p for p, const in params
             if p in by_name and const != isinstance(by_name[p], Constexpr)]
    if missing or wrong:
        raise LookupError(f"{file}'s {kernel} takes parameters "
                          f"this benchmark does not give: {missing or ''} "
                          f"{'constexpr mismatch ' + str(wrong) if wrong else ''}")
    return [(p, by_name[p]) for p, _ in params]


def steps(workload, shape, config, data, sms):
    """The launches one run of the workload makes, in order, each
    (kernel, its arguments in parameter order, grid, config with warps and
    stages): the workload's own `steps` (several kernels), else its one
    kernel."""
    if hasattr(workload, "steps"):
        parts = workload.steps(shape, config, data)
    else:
        parts = [(workload.kernel, workload.values(shape, config, data),
                  workload.grid(shape, config, sms), config)]
    return [(kernel, ordered(workload.file, kernel, by_name), grid, launch_config)
            for kernel, by_name, grid, launch_config in parts]


ARCH = None  # tilec's --arch, from the command line (None: tilec's default)


def compile_options(kernel, config):
    options = ["--kernel", kernel] + (["--arch", ARCH] if ARCH else [])
    if "stages" in config:
        options += ["--num-stages", str(config["stages"])]
    return options


def describe(config):
    return ", ".join(f"{k} {v}" for k, v in config.items())


def first_line(error):
    text = str(error).strip() or type(error).__name__
    lines = [l for l in text.splitlines() if "error" in l.lower()] or text.splitlines()
    return lines[0][:200]


# ---------------------------------------------------------------- no GPU

PTX_COUNTS = {"ld.global (vector)": r"ld\.global[.\w]*\.v[248]", "ld.global (all)": r"ld\.global",
              "st.global (vector)": r"st\.global[.\w]*\.v[248]", "st.global (all)": r"st\.global",
              "shfl": r"shfl\.sync", "bar.sync": r"bar\.sync|barrier\.sync",
              "ld.shared": r"ld\.shared", "st.shared": r"st\.shared",
              "mma": r"\bmma\.sync|wgmma", "ldmatrix": r"ldmatrix",
              "cp.async": r"cp\.async", "ex2": r"ex2\.approx", "div": r"\bdiv\.|rcp\."}


def ptxas_info(ptxas, ptx, arch):
    """Registers, spills and stack of the PTX's entry as ptxas -v reports."""
    result = subprocess.run([ptxas, "-v", f"-arch={arch}", ptx, "-o", os.devnull],
                            capture_output=True, text=True)
    text = result.stdout + result.stderr
    if result.returncode:
        return {"ptxas_error": first_line(text)}
    info = {}
    for key, pattern in (("registers", r"Used (\d+) registers"),
                         ("spill_stores", r"(\d+) bytes spill stores"),
                         ("spill_loads", r"(\d+) bytes spill loads"),
                         ("stack", r"(\d+) bytes stack frame")):
        found = re.search(pattern, text)
        if found:
            info[key] = int(found.group(1))
    return info


def compile_only(args, workloads):
    """Compiles every tilec kernel the GPU run would launch, with ptxas's
    register and spill counts and an instruction census of the PTX."""
    ptxas = args.ptxas or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        ptxas = None
    out = args.out or tempfile.mkdtemp(prefix="language_bench_")
    os.makedirs(out, exist_ok=True)
    rows, seen, ok = [], set(), True
    for workload in workloads:
        path = os.path.join(KERNELS, workload.file)
        for shape in workload.shapes(args.quick):
            for config in workload.configs(shape, args.quick):
                row = {"workload": workload.name, "shape": workload.label(shape),
                       "config": config}
                try:
                    # The grids are not compiled: any SM count will do.
                    launches = steps(workload, shape, config, workload.placeholders(shape),
                                     sms=1)
                except LookupError as error:
                    launches = []
                    rows.append(dict(row, tilec_failed=first_line(error)))
                    print(f"{row['shape']} [{describe(config)}]: tilec FAILED: "
                          f"{first_line(error)}", flush=True)
                    ok = False
                for kernel, values, _, step_config in launches:
                    row = {"workload": workload.name, "shape": workload.label(shape),
                           "kernel": kernel, "config": step_config}
                    sig = signature([v for _, v in values])
                    key = (kernel, sig, step_config.get("warps"), step_config.get("stages"))
                    if key in seen:
                        continue
                    seen.add(key)
                    try:
                        ptx = os.path.join(out, f"{workload.name}_{len(seen)}.ptx")
                        row["signature"] = sig
                        meta, row["compile_ms"] = compile_tl(
                            args.tilec, path, ptx, sig, step_config["warps"],
                            compile_options(kernel, step_config))
                        row["ptx"] = ptx
                        row["shared_bytes"] = meta["shared_bytes"]
                        text = open(ptx).read()
                        row["ptx_counts"] = {k: len(re.findall(p, text))
                                             for k, p in PTX_COUNTS.items()}
                        if ptxas:
                            row.update(ptxas_info(ptxas, ptx, meta["arch"]))
                    except (CompileError, OSError) as error:
                        row["tilec_failed"] = first_line(error)
                        ok = False
                    rows.append(row)
                    what = f"{row['shape']} {kernel} [{describe(step_config)}]"
                    if "tilec_failed" in row:
                        print(f"{what}: tilec FAILED: {row['tilec_failed']}", flush=True)
                    else:
                        counts = ", ".join(f"{v} {k}" for k, v in row["ptx_counts"].items()
                                           if v)
                        print(f"{what}: {row['compile_ms']:.0f} ms, "
                              f"{row.get('registers', '?')} registers, "
                              f"{row.get('spill_stores', '?')}/{row.get('spill_loads', '?')} "
                              f"bytes spilled (st/ld), {row['shared_bytes']} shared bytes; "
                              f"PTX: {counts}", flush=True)
    print(f"PTX in {out}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"compile_only": True, "rows": rows}, f, indent=2)
    return 0 if ok else 1


# ---------------------------------------------------------------- GPU

def check(torch, outputs, data, reference):
    """(ok, largest absolute error) of the outputs against the reference;
    NaN (a poisoned element left unwritten) fails."""
    ok, worst = True, 0.0
    for name, (atol, rtol) in outputs.items():
        ref = reference[name].float()
        err = (data[name].float() - ref).abs()
        ok &= bool((err <= atol + rtol * ref.abs()).all())
        worst = max(worst, float(torch.nan_to_num(err, nan=float("inf")).max()))
    return ok, worst


class Bench:
    def __init__(self, args, workdir):
        import torch
        import triton
        from compare_triton import TilecKernel, load_tl
        from reductions import gbps, timed
        self.torch, self.triton = torch, triton
        self.TilecKernel, self.load_tl, self.timed = TilecKernel, load_tl, timed
        self.rates = {"GB/s": gbps, "TFLOP/s": lambda flops, ms: flops / ms / 1e9}
        self.args, self.workdir = args, workdir
        self.sms = torch.cuda.get_device_properties(0).multi_processor_count
        self.kernels = 0

    def run_tilec(self, workload, step):
        kernel_name, values, grid, config = step
        self.kernels += 1
        kernel = self.TilecKernel(
            self.args.tilec, f"{workload.name}{self.kernels}",
            signature([v for _, v in values]), self.workdir, config["warps"],
            compile_options(kernel_name, config),
            path=os.path.join(KERNELS, workload.file))
        args = entry_args([v for _, v in values])
        if len(args) != len(kernel.meta["params"]):
            raise RuntimeError(f"tilec's entry takes {len(kernel.meta['params'])} "
                               f"parameters, the benchmark gives {len(args)}")
        return kernel.bind(grid, *args), kernel.compile_ms

    def run_triton(self, module, step):
        kernel_name, values, grid, config = step
        fn = getattr(module, kernel_name)
        kwargs = {p: v.value if isinstance(v, Constexpr) else v for p, v in values}
        kwargs["num_warps"] = config["warps"]
        if "stages" in config:
            kwargs["num_stages"] = config["stages"]
        return lambda: fn[grid](**kwargs)

    def launcher(self, who, module, workload, launches):
        """One launch of every step, in order, by tilec or Triton; and
        tilec's compile time, all steps together."""
        runs, compile_ms = [], 0.0
        for step in launches:
            if who == "tilec":
                run, ms = self.run_tilec(workload, step)
                compile_ms += ms
            else:
                run = self.run_triton(module, step)
            runs.append(run)
        if len(runs) == 1:
            return runs[0], compile_ms

        def run_all():
            for run in runs:
                run()
        return run_all, compile_ms

    def measure(self, module, workload, shape, config, data, reference):
        torch = self.torch
        row = {"workload": workload.name, "shape": workload.label(shape),
               "config": config, "unit": workload.unit}
        outputs = workload.outputs(shape)
        launches, tilec_out = {}, None
        try:
            plan = steps(workload, shape, config, data, self.sms)
        except LookupError as error:
            row["tilec_failed"] = row["triton_failed"] = first_line(error)
            return row
        row["grid"] = [list(grid) for _, _, grid, _ in plan]
        if len(plan) == 1:
            row["grid"] = row["grid"][0]
        for who in ("tilec", "triton"):
            try:
                launch, compile_ms = self.launcher(who, module, workload, plan)
                if who == "tilec":
                    row["tilec_compile_ms"] = compile_ms
                for name in outputs:
                    data[name].fill_(float("nan"))
                launch()
                torch.cuda.synchronize()
                row[who + "_correct"], row[who + "_max_error"] = check(
                    torch, outputs, data, reference)
                if who == "tilec":
                    tilec_out = {n: data[n].clone() for n in outputs}
                elif tilec_out is not None:
                    row["tilec_vs_triton"] = max(
                        float(torch.nan_to_num((tilec_out[n].float() - data[n].float()).abs(),
                                               nan=float("inf")).max()) for n in outputs)
                launches[who] = launch
            except Exception as error:  # noqa: BLE001 - a row that says so
                row[who + "_failed"] = first_line(error)
        del tilec_out
        if launches:
            try:
                row.update(self.timed(workload.amount(shape), launches,
                                      self.rates[workload.unit], self.args.rounds))
            except Exception as error:  # noqa: BLE001
                row["timing_failed"] = first_line(error)
        if "tilec" in row and "triton" in row:
            row["ratio"] = row["tilec"] / row["triton"]
        return row

    def slowest_kernel(self, launch):
        """The CUDA kernel that takes longest in one call of `launch`: for
        scaled_dot_product_attention, the backend torch picked."""
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            launch()
            self.torch.cuda.synchronize()

        def device_time(event):  # self_cuda_time_total before torch 2.4
            for name in ("self_device_time_total", "self_cuda_time_total"):
                if hasattr(event, name):
                    return getattr(event, name)
            return 0

        kernels = [e for e in prof.key_averages() if e.device_type == DeviceType.CUDA]
        return max(kernels, key=device_time).key if kernels else None

    def shape(self, module, workload, shape, rows, save):
        torch = self.torch
        torch.manual_seed(0)
        label = workload.label(shape)
        try:
            data = workload.inputs(torch, shape)
            reference = workload.reference(torch, shape, data)
        except Exception as error:  # noqa: BLE001
            print(f"{label}: inputs failed: {first_line(error)}", flush=True)
            return
        summary = {"workload": workload.name, "shape": label, "unit": workload.unit,
                   "summary": True}
        try:
            launch = workload.torch_launch(torch, shape, data)
            summary.update(self.timed(workload.amount(shape), {"torch": launch},
                                      self.rates[workload.unit], self.args.rounds))
        except Exception as error:  # noqa: BLE001
            summary["torch_failed"] = first_line(error)
        else:
            try:
                summary["torch_kernel"] = self.slowest_kernel(launch)
            except Exception as error:  # noqa: BLE001 - the figure stands
                summary["torch_kernel_failed"] = first_line(error)
        measured = []
        for config in workload.configs(shape, self.args.quick):
            row = self.measure(module, workload, shape, config, data, reference)
            print_row(row)
            measured.append(row)
            rows.append(row)
            save()
        summarize(summary, measured)
        rows.append(summary)
        save()
        del data, reference
        torch.cuda.empty_cache()


def summarize(summary, measured):
    """tilec's best configuration with Triton at it, and Triton's best."""
    timed = [r for r in measured if "tilec" in r and r.get("tilec_correct")]
    triton_timed = [r for r in measured if "triton" in r and r.get("triton_correct")]
    if timed:
        best = max(timed, key=lambda r: r["tilec"])
        summary.update(tilec=best["tilec"], config=best["config"],
                       triton_same=best.get("triton"),
                       spread=max(best.get("tilec_spread", 0), best.get("triton_spread", 0)))
    if triton_timed:
        best = max(triton_timed, key=lambda r: r["triton"])
        summary.update(triton_best=best["triton"], triton_best_config=best["config"])
    # A configuration one of them cannot compile or launch is a failure,
    # counted apart; a wrong output is not correct.
    summary["correct"] = not any(r.get(who + "_correct") is False
                                 for r in measured for who in ("tilec", "triton"))
    summary["failures"] = sum(1 for r in measured
                              if any(k.endswith("_failed") for k in r))


def fmt(value, unit, with_unit=False):
    if value is None:
        return "-"
    text = f"{value:.0f}" if unit == "GB/s" else f"{value:.1f}"
    return f"{text} {unit}" if with_unit else text


def verdict(row):
    notes = []
    for who in ("tilec", "triton"):
        if who + "_failed" in row:
            notes.append(f"{who} FAILED: {row[who + '_failed']}")
        elif row.get(who + "_correct") is False:
            notes.append(f"{who} WRONG (max error {row[who + '_max_error']:.3g})")
    if "timing_failed" in row:
        notes.append(f"timing FAILED: {row['timing_failed']}")
    return "; ".join(notes) or "ok"


def print_row(row):
    unit = row["unit"]
    spread = max(row.get("tilec_spread", 0), row.get("triton_spread", 0))
    ratio = f"{row['ratio']:.3f}" if "ratio" in row else "-"
    print(f"  {row['shape']} [{describe(row['config'])}]: tilec "
          f"{fmt(row.get('tilec'), unit, True)}, triton {fmt(row.get('triton'), unit, True)}, "
          f"tilec/triton {ratio}, spread {100 * spread:.1f}%; {verdict(row)}", flush=True)


def attention_backend(kernel):
    """Which of scaled_dot_product_attention's backends a kernel name is."""
    name = (kernel or "").lower()
    for part, backend in (("cudnn", "cuDNN"), ("flash", "FlashAttention"),
                          ("fmha", "memory-efficient"), ("efficient", "memory-efficient")):
        if part in name:
            return backend
    return None


def print_tables(rows, header):
    print(f"\n{header}\n")
    print("| workload | unit | tilec best (config) | Triton, same config | tilec/Triton | "
          "Triton's best (config) | tilec/Triton's best | spread | torch | correct |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in (r for r in rows if r.get("summary")):
        u = r["unit"]
        same = r.get("triton_same")
        tbest = r.get("triton_best")
        tilec = r.get("tilec")
        ratio = f"{tilec / same:.3f}x" if tilec and same else "-"
        ratio_best = f"{tilec / tbest:.3f}x" if tilec and tbest else "-"
        cfg = f" ({describe(r['config'])})" if "config" in r else ""
        tcfg = f" ({describe(r['triton_best_config'])})" if "triton_best_config" in r else ""
        failures = f", {r['failures']} failed" if r.get("failures") else ""
        backend = attention_backend(r.get("torch_kernel"))
        print(f"| {r['shape']} | {u} | {fmt(tilec, u)}{cfg} | {fmt(same, u)} | {ratio} | "
              f"{fmt(tbest, u)}{tcfg} | {ratio_best} | {100 * r.get('spread', 0):.1f}% | "
              f"{fmt(r.get('torch'), u)}{f' ({backend})' if backend else ''} | "
              f"{r['correct']}{failures} |")
    print("\nEvery configuration:\n")
    print("| workload | config | grid | tilec | Triton | tilec/Triton | spread | "
          "max error tilec / Triton | notes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in (r for r in rows if not r.get("summary")):
        u = r["unit"]
        spread = max(r.get("tilec_spread", 0), r.get("triton_spread", 0))
        errors = " / ".join(f"{r[k]:.2g}" if k in r else "-"
                            for k in ("tilec_max_error", "triton_max_error"))
        ratio = f"{r['ratio']:.3f}x" if "ratio" in r else "-"
        print(f"| {r['shape']} | {describe(r['config'])} | {r.get('grid')} | "
              f"{fmt(r.get('tilec'), u, True)} | {fmt(r.get('triton'), u, True)} | "
              f"{ratio} | {100 * spread:.1f}% | {errors} | {verdict(r)} |")


def gpu_run(args, workloads):
    with tempfile.TemporaryDirectory() as workdir:
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(workdir, "triton"))
        bench = Bench(args, workdir)
        torch, triton = bench.torch, bench.triton
        header = (f"{torch.cuda.get_device_name()}, triton {triton.__version__}, "
                  f"torch {torch.__version__}, median of {args.rounds} rounds")
        print(header, flush=True)
        rows, skipped, start = [], [], time.monotonic()

        def save():
            if args.json:
                with open(args.json, "w") as f:
                    json.dump({"device": torch.cuda.get_device_name(),
                               "triton": triton.__version__, "torch": torch.__version__,
                               "rounds": args.rounds, "rows": rows,
                               "not_run": skipped}, f, indent=2)

        for workload in workloads:
            path = os.path.join(KERNELS, workload.file)
            try:
                module = bench.load_tl(workload.name + "_tl", path)
            except Exception as error:  # noqa: BLE001
                print(f"{workload.name}: cannot load {path}: {first_line(error)}")
                rows.append({"workload": workload.name, "shape": workload.name,
                             "unit": workload.unit, "summary": True, "correct": False,
                             "load_failed": first_line(error)})
                continue
            print(f"{workload.name} ({workload.file}, {workload.kernel})", flush=True)
            for shape in workload.shapes(args.quick):
                if args.time_limit and time.monotonic() - start > args.time_limit:
                    print(f"  time limit: {workload.label(shape)} not run", flush=True)
                    skipped.append(workload.label(shape))
                    continue
                bench.shape(module, workload, shape, rows, save)
        print_tables(rows, header)
        save()
        if args.svg:
            import plots
            for path in plots.draw({"device": torch.cuda.get_device_name(),
                                    "rows": rows}, args.svg):
                print(f"wrote {path}")
        configs = [r for r in rows if not r.get("summary")]
    wrong = sum(1 for r in configs if "WRONG" in verdict(r))
    failed = sum(1 for r in configs if "FAILED" in verdict(r))
    print(f"\n{len(configs)} configurations: {wrong} with wrong outputs, {failed} "
          f"that tilec or Triton could not compile, launch or time"
          + (f"; {len(skipped)} shapes not run (time limit)" if skipped else ""))
    return 0 if not wrong and all(r.get("correct") for r in rows if r.get("summary")) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    parser.add_argument("--json", help="write every row here")
    parser.add_argument("--svg", help="draw each workload's speedups as SVG in this "
                                      "directory (bench/plots.py, matplotlib)")
    parser.add_argument("--arch",
                        help="tilec's --arch (default: tilec's, the GPU present's: "
                             "sm_90a on Hopper, dots on wgmma)")
    parser.add_argument("--quick", action="store_true",
                        help="two shapes each (one N_CTX for attention), two configurations")
    parser.add_argument("--only", default="",
                        help="comma-separated workloads: softmax, layer_norm, attention "
                             "(with attention_gqa, attention_fp8 and attention_bwd), "
                             "attention_gqa, attention_fp8, attention_bwd")
    parser.add_argument("--rounds", type=int, default=5,
                        help="do_bench runs per figure, taken in turn (default 5)")
    parser.add_argument("--time-limit", type=float,
                        help="seconds after which no further shape is started "
                             "(the tables still print)")
    parser.add_argument("--compile-only", action="store_true",
                        help="no GPU: compile every tilec kernel of the run to PTX, "
                             "with ptxas's register and spill counts")
    parser.add_argument("--out", help="with --compile-only: keep the PTX here")
    parser.add_argument("--ptxas", help="with --compile-only (default: from PATH or "
                                        "/usr/local/cuda/bin)")
    args = parser.parse_args()
    global ARCH
    ARCH = args.arch
    # A name takes its variants too: attention takes attention_gqa.
    wanted = [w for w in args.only.split(",") if w]

    def chosen(workload):
        return any(workload.name == x or workload.name.startswith(x + "_") for x in wanted)
    unknown = set(wanted) - {w.name for w in WORKLOADS}
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}; "
                     f"known: {[w.name for w in WORKLOADS]}")
    workloads = [w for w in WORKLOADS if not wanted or chosen(w)]
    if args.compile_only:
        return compile_only(args, workloads)
    return gpu_run(args, workloads)


if __name__ == "__main__":
    sys.exit(main())
