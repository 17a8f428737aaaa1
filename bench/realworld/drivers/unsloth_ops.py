"""Drives unsloth's Triton kernels (unsloth/kernels) forward and backward on
random inputs of the shapes and dtypes models give them, under the capture
hook. unsloth has no tests of these kernels of its own (its moe tests are
run by pytest beside this); each call below is the op's public entry point,
as its model code calls it.

    CAPTURE_DIR=... python3 unsloth_ops.py UNSLOTH_CHECKOUT

unsloth_zoo is stubbed (the GPU machine lacks it) and the unsloth package is
registered without running its __init__.py, which patches transformers.
"""
import os
import sys
import traceback

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
import shims  # noqa: E402
import triton_capture  # noqa: E402

import packaging.version  # noqa: E402
import torch  # noqa: E402

checkout = os.path.abspath(sys.argv[1])
shims.stub_packages(["unsloth_zoo"], {
    "unsloth_zoo.utils": {"Version": packaging.version.Version}})
unsloth = shims.bare_package("unsloth", os.path.join(checkout, "unsloth"))
shims.bare_package("unsloth.kernels", os.path.join(checkout, "unsloth", "kernels"))
from unsloth import device_type  # noqa: E402
unsloth.DEVICE_TYPE = device_type.DEVICE_TYPE

triton_capture.install(os.environ["CAPTURE_DIR"],
                       int(os.environ.get("CAPTURE_PER_SPECIALIZATION", "4")))

cuda = "cuda"
failures = []


def case(name):
    def run(body):
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            try:
                body(dtype)
                torch.cuda.synchronize()
                print(f"ok   {name} {dtype}", flush=True)
            except Exception:
                failures.append(name)
                print(f"FAIL {name} {dtype}\n{traceback.format_exc()}", flush=True)
        return body
    return run


def leaf(*shape, dtype, scale=1.0):
    return (torch.randn(*shape, dtype=dtype, device=cuda) * scale).requires_grad_()


@case("rms_layernorm")
def _(dtype):
    from unsloth.kernels.rms_layernorm import fast_rms_layernorm
    for dim, gemma in ((1024, False), (4096, True), (1000, False)):
        norm = torch.nn.Module()
        norm.weight = torch.nn.Parameter(torch.rand(dim, dtype=dtype, device=cuda))
        norm.variance_epsilon = 1e-6
        X = leaf(3, 77, dim, dtype=dtype)
        fast_rms_layernorm(norm, X, gemma=gemma).backward(torch.randn_like(X))


@case("layernorm")
def _(dtype):
    from unsloth.kernels.layernorm import fast_layernorm
    for dim in (512, 2048, 777):
        norm = torch.nn.LayerNorm(dim, eps=1e-5, device=cuda, dtype=dtype)
        torch.nn.init.uniform_(norm.weight)
        torch.nn.init.uniform_(norm.bias)
        X = leaf(2, 65, dim, dtype=dtype)
        fast_layernorm(norm, X).backward(torch.randn_like(X))


@case("rope")
def _(dtype):
    from unsloth.kernels.rope_embedding import fast_rope_embedding
    batch, heads, kv_heads, seq, head_dim = 2, 8, 2, 100, 128
    cos = torch.randn(seq, head_dim, dtype=dtype, device=cuda)
    sin = torch.randn(seq, head_dim, dtype=dtype, device=cuda)
    for indices in (None, torch.randint(0, seq, (batch, seq), device=cuda)):
        Q = leaf(batch, heads, seq, head_dim, dtype=dtype)
        K = leaf(batch, kv_heads, seq, head_dim, dtype=dtype)
        q, k = fast_rope_embedding(Q, K, cos, sin, indices)
        torch.autograd.backward((q, k), (torch.randn_like(q), torch.randn_like(k)))


@case("cross_entropy")
def _(dtype):
    from unsloth.kernels.cross_entropy_loss import fast_cross_entropy_loss
    for vocab, softcap, scaling in ((32000, 0, 0), (32000, 30.0, 0), (32000, 0, 0.5),
                                    (131072 + 1000, 0, 0), (131072 + 1000, 20.0, 0.25)):
        logits = leaf(2, 33, vocab, dtype=dtype)
        labels = torch.randint(0, vocab, (2, 33), device=cuda)
        labels[0, :5] = -100
        fast_cross_entropy_loss(logits, labels, softcap, scaling).backward()


@case("swiglu")
def _(dtype):
    from unsloth.kernels.swiglu import swiglu_fg_kernel, swiglu_DWf_DW_dfg_kernel
    e = torch.randn(2, 50, 1376, dtype=dtype, device=cuda)
    g = torch.randn_like(e)
    swiglu_fg_kernel(e, g)
    DW = torch.randn(100, 1376, dtype=dtype, device=cuda)
    swiglu_DWf_DW_dfg_kernel(DW, e.view(100, 1376).clone(), g.view(100, 1376).clone())


@case("geglu")
def _(dtype):
    from unsloth.kernels import geglu
    gate = torch.randn(2, 50, 1376, dtype=dtype, device=cuda)
    up = torch.randn_like(gate)
    geglu.geglu_exact_forward_kernel(gate, up)
    geglu.geglu_approx_forward_kernel(gate, up)
    for backward in (geglu.geglu_exact_backward_kernel, geglu.geglu_approx_backward_kernel):
        DW = torch.randn(100, 1376, dtype=dtype, device=cuda)
        backward(DW, gate.view(100, 1376).clone(), up.view(100, 1376).clone())


@case("fp8")
def _(dtype):
    if dtype == torch.float32:
        return
    from unsloth.kernels import fp8
    x = torch.randn(256, 512, device=cuda).to(torch.float8_e4m3fn)
    s = torch.rand(2, 4, device=cuda) + 0.5
    fp8.weight_dequant_block(x, s, dtype=dtype)
    fp8.act_quant(torch.randn(64, 512, dtype=dtype, device=cuda))
    A, As = fp8.act_quant(torch.randn(64, 512, dtype=dtype, device=cuda))
    B = torch.randn(384, 512, device=cuda).to(torch.float8_e4m3fn)
    Bs = torch.rand(3, 4, device=cuda) + 0.5
    fp8.w8a8_block_fp8_matmul_triton(A, B, As, Bs, [128, 128], dtype)


print(f"{len(failures)} cases failed: {sorted(set(failures))}")
