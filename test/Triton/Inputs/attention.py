"""Cases of attention.tl: the forward, non-causal on full blocks and causal
on a ragged sequence; the backward's three kernels on the same two shapes.
The backward's inputs (Out, L, Delta) are the float64 forward's, rounded as
the kernels store them, so that each kernel is checked on its own."""
import numpy as np

from suite import Case

LOG2E = 1.4426950408889634


def probabilities(q, k, sm_scale, causal):
    s = np.einsum("zhmd,zhnd->zhmn", q.astype(np.float64), k.astype(np.float64)) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    total = np.exp(s - m).sum(-1, keepdims=True)
    lse = (m + np.log(total))[..., 0]
    return np.exp(s - m) / total, lse


class Problem:
    def __init__(self, rng, z, h, n, d, causal):
        f16 = lambda: rng.standard_normal((z, h, n, d)).astype(np.float16)
        self.q, self.k, self.v, self.do = f16(), f16(), f16(), f16()
        self.shape = (z, h, n, d)
        self.causal = causal
        self.sm_scale = 1 / np.sqrt(d)
        self.p, lse = probabilities(self.q, self.k, self.sm_scale, causal)
        self.o = np.einsum("zhmn,zhnd->zhmd", self.p, self.v.astype(np.float64))
        self.l = lse * LOG2E
        o16 = self.o.astype(np.float16)
        self.delta = (o16.astype(np.float64) * self.do).sum(-1)
        # The gradients from the inputs the kernels get: fp16 O (Delta from
        # it) and fp32 L.
        delta = self.delta.astype(np.float32).astype(np.float64)
        dp = np.einsum("zhmd,zhnd->zhmn", self.do.astype(np.float64), self.v.astype(np.float64))
        ds = self.p * (dp - delta[..., None])
        self.dv = np.einsum("zhmn,zhmd->zhnd", self.p, self.do.astype(np.float64))
        self.dk = np.einsum("zhmn,zhmd->zhnd", ds, self.q.astype(np.float64)) * self.sm_scale
        self.dq = np.einsum("zhmn,zhnd->zhmd", ds, self.k.astype(np.float64)) * self.sm_scale

    def strides(self):
        z, h, n, d = self.shape
        return [("stride_z", h * n * d), ("stride_h", n * d), ("stride_n", d),
                ("H", h), ("N_CTX", n)]


def cdiv(a, b):
    return -(-a // b)


def forward(name, p, block_m, block_n, signature=None, num_warps=4, programs=None):
    """attention_fwd's case, or with `programs`, attention_fwd_persistent's
    on a grid of that many."""
    z, h, n, d = p.shape
    if signature:
        signature += f", {d}, {block_m}, {block_n}, {int(p.causal)}"
    strides = p.strides()
    kernel, grid = "attention_fwd", (cdiv(n, block_m), z * h)
    if programs:
        kernel, grid = "attention_fwd_persistent", (programs,)
        strides = strides[:3] + [("Z", z)] + strides[3:]
    return Case(name, kernel, grid,
                [("Q", p.q), ("K", p.k), ("V", p.v), ("sm_scale", float(p.sm_scale)),
                 ("Out", np.zeros(p.shape, np.float16)), ("L", np.zeros((z, h, n), np.float32))]
                + strides,
                {"Out": (p.o, 5e-3), "L": (p.l, 1e-5)},
                {"HEAD_DIM": d, "BLOCK_M": block_m, "BLOCK_N": block_n, "CAUSAL": p.causal},
                num_warps=num_warps, signature=signature)


def grouped_forward(name, rng, z, h, group, n, d, causal, block_m, block_n, signature=None):
    """attention_fwd_gqa: h query heads, h // group heads of keys and
    values, query head i reading key and value head i // group."""
    f16 = lambda heads: rng.standard_normal((z, heads, n, d)).astype(np.float16)
    q, k, v = f16(h), f16(h // group), f16(h // group)
    sm_scale = 1 / np.sqrt(d)
    p, lse = probabilities(q, np.repeat(k, group, axis=1), sm_scale, causal)
    o = np.einsum("zhmn,zhnd->zhmd", p, np.repeat(v, group, axis=1).astype(np.float64))
    constexprs = {"HEAD_DIM": d, "BLOCK_M": block_m, "BLOCK_N": block_n, "CAUSAL": causal}
    if signature:
        signature += f", {d}, {block_m}, {block_n}, {int(causal)}"
    return Case(name, "attention_fwd_gqa", (cdiv(n, block_m), z * h),
                [("Q", q), ("K", k), ("V", v), ("sm_scale", float(sm_scale)),
                 ("Out", np.zeros(q.shape, np.float16)), ("L", np.zeros((z, h, n), np.float32)),
                 ("stride_z", h * n * d), ("stride_h", n * d),
                 ("stride_kv_z", h // group * n * d), ("stride_kv_h", n * d),
                 ("stride_n", d), ("H", h), ("GROUP", group), ("N_CTX", n)],
                {"Out": (o, 5e-3), "L": (lse * LOG2E, 1e-5)}, constexprs, signature=signature)


def e4m3(rng, shape):
    """Standard normal numbers rounded to the nearest fp8 e4m3: (the bits,
    uint8, as tile-run takes fp8 buffers; their values, float64)."""
    codes = np.arange(128, dtype=np.int64)
    exp, man = codes >> 3, (codes & 7) / 8.0
    magnitudes = np.where(exp == 0, man * 2.0 ** -6, (1 + man) * 2.0 ** (exp - 7))[:127]
    x = rng.standard_normal(shape)
    # The largest magnitude not above |x|, or the next one where nearer.
    below = np.clip(np.searchsorted(magnitudes, np.abs(x), side="right") - 1, 0, 126)
    above = np.minimum(below + 1, 126)
    nearer = np.abs(magnitudes[above] - np.abs(x)) < np.abs(np.abs(x) - magnitudes[below])
    code = np.where(nearer, above, below)
    bits = (code | np.where(x < 0, 0x80, 0)).astype(np.uint8)
    return bits, np.where(x < 0, -magnitudes[code], magnitudes[code])


def transposed_forward(name, rng, z, h, n, d, causal, block_m, block_n, num_warps):
    """attention_fwd_vt on fp8 (e4m3) Q, K and V, V given transposed with
    rows of n rounded up to 16 keys (16-byte aligned, as bulk copies want
    them), as Triton's tutorial gives fp8 values. P is rounded to fp8 for
    P V (3 bits of mantissa): a few percent of the output's largest; and
    Hopper's fp8 wgmma sums Q K^T with a shorter mantissa than fp32's
    (about 14 bits): L to a few parts in 10^5 (Triton's alike)."""
    (q, qv), (k, kv), (v, vv) = (e4m3(rng, (z, h, n, d)) for _ in range(3))
    row = cdiv(n, 16) * 16
    vt = np.zeros((z, h, d, row), np.uint8)
    vt[..., :n] = np.swapaxes(v, 2, 3)
    sm_scale = 1 / np.sqrt(d)
    p, lse = probabilities(qv, kv, sm_scale, causal)
    o = np.einsum("zhmn,zhnd->zhmd", p, vv)
    fp8 = "*fp8e4nv:16"
    signature = (f"{fp8}, {fp8}, {fp8}, fp32, *fp16:16, *fp32:16, "
                 + ", ".join(["i32:16"] * 6) + f", i32, i32, {d}, {block_m}, {block_n}, "
                 f"{int(causal)}")
    return Case(name, "attention_fwd_vt", (cdiv(n, block_m), z * h),
                [("Q", q), ("K", k), ("VT", vt), ("sm_scale", float(sm_scale)),
                 ("Out", np.zeros(q.shape, np.float16)), ("L", np.zeros((z, h, n), np.float32)),
                 ("stride_z", h * n * d), ("stride_h", n * d), ("stride_n", d),
                 ("stride_vt_z", h * d * row), ("stride_vt_h", d * row), ("stride_vt", row),
                 ("H", h), ("N_CTX", n)],
                {"Out": (o, 4e-2), "L": (lse * LOG2E, 5e-4)},
                {"HEAD_DIM": d, "BLOCK_M": block_m, "BLOCK_N": block_n, "CAUSAL": causal},
                num_warps=num_warps, signature=signature)


def preprocess(p, block_m):
    z, h, n, d = p.shape
    return Case("bwd_preprocess", "attention_bwd_preprocess", (cdiv(n, block_m), z * h),
                [("O", p.o.astype(np.float16)), ("DO", p.do),
                 ("Delta", np.zeros((z, h, n), np.float32)), ("N_CTX", n)],
                {"Delta": (p.delta, 1e-5)}, {"HEAD_DIM": d, "BLOCK_M": block_m})


def backward(name, kernel, p, block_m, block_n, signature=None, num_warps=4):
    z, h, n, d = p.shape
    if signature:
        signature += f", {d}, {block_m}, {block_n}, {int(p.causal)}"
    statistics = [("L", p.l.astype(np.float32)), ("Delta", p.delta.astype(np.float32))]
    head = [("Q", p.q), ("K", p.k), ("V", p.v), ("sm_scale", float(p.sm_scale)), ("DO", p.do)]
    constexprs = {"HEAD_DIM": d, "BLOCK_M": block_m, "BLOCK_N": block_n, "CAUSAL": p.causal}
    grad = lambda: np.zeros(p.shape, np.float32)
    if kernel == "attention_bwd_dkdv":
        return Case(name, kernel, (cdiv(n, block_n), z * h),
                    head + [("DK", grad()), ("DV", grad())] + statistics + p.strides(),
                    {"DK": (p.dk, 5e-3), "DV": (p.dv, 5e-3)}, constexprs,
                    num_warps=num_warps, signature=signature)
    return Case(name, kernel, (cdiv(n, block_m), z * h),
                head + [("DQ", grad())] + statistics + p.strides(),
                {"DQ": (p.dq, 5e-3)}, constexprs,
                num_warps=num_warps, signature=signature)


def cases():
    rng = np.random.default_rng(6)
    full = Problem(rng, 1, 2, 128, 64, False)
    ragged = Problem(rng, 2, 1, 100, 32, True)
    yield forward("fwd", full, 64, 32)
    yield forward("fwd_causal_ragged", ragged, 32, 16)
    yield preprocess(ragged, 32)
    yield backward("bwd_dkdv", "attention_bwd_dkdv", full, 32, 64)
    yield backward("bwd_dkdv_causal_ragged", "attention_bwd_dkdv", ragged, 16, 32)
    yield backward("bwd_dq", "attention_bwd_dq", full, 64, 32)
    yield backward("bwd_dq_causal_ragged", "attention_bwd_dq", ragged, 32, 16)
    # Pointers and strides specialized as 16-byte aligned, as Triton's JIT
    # does: on sm_90a the keys and values come by bulk copies, through maps
    # with the head and the batch as outer dimensions (H = 3, two batches)
    # and a ragged end (200 keys).
    aligned = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp32:16, "
               "i32:16, i32:16, i32:16, i32, i32")
    for causal in (False, True):
        heads = Problem(rng, 2, 3, 200, 64, causal)
        yield forward("fwd_heads_aligned" + ("_causal" if causal else ""), heads, 64, 32,
                      signature=aligned)
    # Head dim 128: on sm_90a the second dot (P V) is issued an iteration
    # late (tilegpu-overlap-dots), here over a ragged end and, causal, over
    # the first block of queries' single block of keys.
    for causal in (False, True):
        wide = Problem(rng, 1, 2, 200, 128, causal)
        yield forward("fwd_d128_aligned" + ("_causal" if causal else ""), wide, 64, 64,
                      signature=aligned)
    # 128 queries a program on 8 warps, two warpgroups of 64: on sm_90a, as
    # FlashAttention-3 runs them, a producer warpgroup copies K and V, and
    # the two take turns at the tensor cores (ragged, and causal).
    for causal in (False, True):
        wide = Problem(rng, 1, 2, 300, 128, causal)
        yield forward("fwd_d128_two_warpgroups" + ("_causal" if causal else ""), wide,
                      128, 64, signature=aligned, num_warps=8)
    # Grouped-query attention: 6 query heads in groups of 3 over 2 heads of
    # keys and values, two batches, a ragged end; as Triton's JIT would
    # specialize it (bulk copies of K and V on sm_90a, the head of keys
    # (h % H) // GROUP an outer dimension of their maps), and not.
    grouped = ("*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp32:16, "
               "i32:16, i32:16, i32:16, i32:16, i32:16, i32, i32, i32")
    yield grouped_forward("fwd_gqa", rng, 2, 6, 3, 100, 32, False, 32, 16)
    yield grouped_forward("fwd_gqa_aligned_causal", rng, 2, 6, 3, 200, 64, True, 64, 32,
                          signature=grouped)
    # The backward's dk/dv at head dim 128 on 8 warps: on sm_90a a producer
    # warpgroup copies q and do, which the consumers read as they are and
    # transposed (ragged, causal).
    wide = Problem(rng, 1, 2, 200, 128, True)
    yield backward("bwd_dkdv_d128_warp_specialized", "attention_bwd_dkdv", wide, 64, 128,
                   signature="*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp32:16, "
                   "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32, i32",
                   num_warps=8)
    # And its dq: the head's origin added to K^T's and V^T's indices goes to
    # the scalar pointer (tile-combine), so that on sm_90a they come by bulk
    # copies to a producer warpgroup, which copies q and do first.
    yield backward("bwd_dq_d128_warp_specialized", "attention_bwd_dq", wide, 128, 64,
                   signature="*fp16:16, *fp16:16, *fp16:16, fp32, *fp16:16, *fp32:16, "
                   "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32, i32",
                   num_warps=8)
    # Persistent: 3 programs run the 2 x 3 heads' 3 blocks of queries each
    # (ragged), on sm_90a warp-specialized across them, the rings' slots
    # and phases counted on from one block to the next.
    persistent = aligned.replace("i32, i32", "i32, i32, i32")
    for causal in (False, True):
        wide = Problem(rng, 2, 3, 300, 128, causal)
        yield forward("fwd_persistent" + ("_causal" if causal else ""), wide, 128, 64,
                      signature=persistent, num_warps=8, programs=3)
    # fp8 (e4m3), V given transposed: on sm_90a both dots read their B
    # K-major as fp8 wgmma wants, V^T's tile as it was copied; 8 warps take
    # turns as the fp16 ones do (ragged, and causal).
    for causal in (False, True):
        yield transposed_forward("fwd_fp8_vt" + ("_causal" if causal else ""), rng, 1, 2, 300,
                                 128, causal, 128, 64, num_warps=8)
