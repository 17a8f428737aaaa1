#!/usr/bin/env python3
"""Checks on the GPU the wgmma facts the Hopper lowering builds on
(docs/hopper-facts.md): the shared-memory descriptor (start, LBO, SBO,
swizzle), the NVMMA swizzled layouts with their column panels, the
transpose flag for N-major B, the advance per K step, and the
accumulator's register fragment.

Each case is one warpgroup doing D = A @ B with m64nNk16 f16 wgmma in
hand-written PTX: the host lays A and B out in shared-memory images (the
swizzle and panels computed here, from the facts), the kernel copies the
images into shared memory as they are, issues the K steps with
descriptors built from the same facts, and writes every thread's
accumulator registers out; the host places them by the fragment formula
and compares with NumPy. Needs an sm_90 GPU, CuPy and NumPy.

    python3 bench/wgmma_probe.py
"""
import os
import sys
import tempfile

import numpy as np

SWIZZLE_FIELD = {128: 1, 64: 2, 32: 3}


def smem_image(x, swizzle):
    """The bytes of x [rows, cols] (f16, cols contiguous) in the NVMMA
    layout: column panels of `swizzle` bytes, each rows x swizzle bytes,
    16-byte chunks of row r xor-ed with (r / perPhase) % maxPhase."""
    rows, cols = x.shape
    per_panel = swizzle // 2
    per_phase, max_phase = 128 // swizzle, swizzle // 16
    image = np.zeros(rows * cols * 2, np.uint8)
    raw = x.astype(np.float16).view(np.uint8).reshape(rows, cols, 2)
    for r in range(rows):
        for c in range(cols):
            panel, within = divmod(c, per_panel)
            chunk, byte = divmod(within * 2, 16)
            chunk ^= (r // per_phase) % max_phase
            at = panel * rows * swizzle + r * swizzle + chunk * 16 + byte
            image[at:at + 2] = raw[r, c]
    return image


def descriptor_constant(lbo, sbo, swizzle):
    """The descriptor without its start address."""
    return ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | \
        SWIZZLE_FIELD[swizzle] << 62


def ptx(n, k, a_steps, b_steps, a_const, b_const, b_offset, trans_b,
        groups=1, group_rows_bytes=0):
    """The kernel: copy both images, then K/16 wgmmas whose descriptors
    start at the byte offsets a_steps[s] (plus group_rows_bytes for each
    warpgroup before this one: they split M) and b_offset + b_steps[s]."""
    regs = n // 2
    threads = 128 * groups
    d = "{" + ", ".join(f"%f{i}" for i in range(regs)) + "}"
    lines = [
        ".version 8.0", ".target sm_90a", ".address_size 64",
        ".extern .shared .align 1024 .b8 smem[];",
        ".visible .entry probe(.param .u64 p_img, .param .u64 p_out, .param .u32 p_words)",
        f".reqntid {threads}, 1, 1",
        "{",
        f"  .reg .f32 %f<{regs}>;", "  .reg .b32 %r<16>;", "  .reg .b64 %rd<16>;",
        "  .reg .pred %p<4>;",
        "  ld.param.u64 %rd1, [p_img];", "  ld.param.u64 %rd2, [p_out];",
        "  ld.param.u32 %r1, [p_words];",
        "  mov.u32 %r2, %tid.x;", "  mov.u32 %r3, smem;",
        "  mov.u32 %r4, %r2;",
        "COPY:",
        "  setp.ge.u32 %p1, %r4, %r1;", "  @%p1 bra COPIED;",
        "  mul.wide.u32 %rd3, %r4, 4;", "  add.s64 %rd4, %rd1, %rd3;",
        "  ld.global.u32 %r5, [%rd4];",
        "  shl.b32 %r6, %r4, 2;", "  add.u32 %r7, %r3, %r6;",
        "  st.shared.u32 [%r7], %r5;",
        f"  add.u32 %r4, %r4, {threads};", "  bra COPY;",
        "COPIED:",
        # This warpgroup's rows of A.
        "  shr.u32 %r10, %r2, 7;", f"  mul.lo.u32 %r11, %r10, {group_rows_bytes};",
        "  add.u32 %r12, %r3, %r11;",
        "  fence.proxy.async.shared::cta;", "  bar.sync 0;",
        "  wgmma.fence.sync.aligned;",
    ]
    for s, (a_at, b_at) in enumerate(zip(a_steps, b_steps)):
        lines += [
            f"  add.u32 %r8, %r12, {a_at};", "  shr.u32 %r8, %r8, 4;", "  and.b32 %r8, %r8, 16383;",
            "  cvt.u64.u32 %rd5, %r8;", f"  or.b64 %rd6, %rd5, {a_const:#x};",
            f"  add.u32 %r9, %r3, {b_offset + b_at};", "  shr.u32 %r9, %r9, 4;", "  and.b32 %r9, %r9, 16383;",
            "  cvt.u64.u32 %rd7, %r9;", f"  or.b64 %rd8, %rd7, {b_const:#x};",
            # scale-d: the first step overwrites D, the others accumulate.
            f"  setp.{'ne' if s == 0 else 'eq'}.u32 %p2, %r2, %r2;",
            f"  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {d}, %rd6, %rd8, %p2, 1, 1, 0, {trans_b};",
        ]
    lines += ["  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;",
              f"  mul.wide.u32 %rd9, %r2, {4 * regs};", "  add.s64 %rd10, %rd2, %rd9;"]
    lines += [f"  st.global.f32 [%rd10+{4 * i}], %f{i};" for i in range(regs)]
    lines += ["  ret;", "}"]
    return "\n".join(lines) + "\n"


def place(out, n, groups=1):
    """The 64 groups x n accumulator from each thread's registers, by the
    fragment formula: warp w of a warpgroup holds rows 16w.., lane l row
    l/4 (+8) and columns 2 (l % 4) (+1) of every 8-column block."""
    d = np.full((64 * groups, n), np.nan, np.float32)
    for t in range(128 * groups):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            row = 16 * w + (lane >> 2) + 8 * ((i >> 1) & 1)
            col = 8 * (i >> 2) + 2 * (lane & 3) + (i & 1)
            d[row, col] = out[t, i]
    return d


def case(name, n, k, swizzle_a, b_k_major, swizzle_b, rng, groups=1):
    """A [64 groups, k] K-major, a warpgroup per 64 rows; B [k, n] N-major
    (trans-b 1), or stored as B^T [n, k] K-major (trans-b 0)."""
    import cupy
    m = 64 * groups
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    a_img = smem_image(a, swizzle_a)
    # K-major (A, and B^T): rows of swizzle bytes of K, 8-row groups SBO
    # apart; a K step of 16 is 32 bytes into the row, then the next panel.
    a_const = descriptor_constant(16, 8 * swizzle_a, swizzle_a)
    panel = lambda s, rows, swz: (s * 32 // swz) * rows * swz + (s * 32) % swz
    a_steps = [panel(s, m, swizzle_a) for s in range(k // 16)]
    if b_k_major:
        b_img = smem_image(np.ascontiguousarray(b.T), swizzle_b)
        b_const = descriptor_constant(16, 8 * swizzle_b, swizzle_b)
        b_steps = [panel(s, n, swizzle_b) for s in range(k // 16)]
    else:
        # N-major: rows of swizzle bytes of N (a panel per swizzle width,
        # LBO apart), 8 K-rows SBO apart; a K step is 16 rows.
        b_img = smem_image(b, swizzle_b)
        b_const = descriptor_constant(k * swizzle_b, 8 * swizzle_b, swizzle_b)
        b_steps = [s * 16 * swizzle_b for s in range(k // 16)]
    b_offset = -(-len(a_img) // 1024) * 1024
    image = np.zeros(b_offset + len(b_img), np.uint8)
    image[:len(a_img)] = a_img
    image[b_offset:] = b_img
    # A warpgroup's 64 rows start 64 rows of swizzle bytes further.
    text = ptx(n, k, a_steps, b_steps, a_const, b_const, b_offset, 0 if b_k_major else 1,
               groups, 64 * swizzle_a)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
    function = cupy.RawModule(path=f.name).get_function("probe")
    os.unlink(f.name)
    function.max_dynamic_shared_size_bytes = len(image)
    words = len(image) // 4
    img = cupy.asarray(image.view(np.uint32))
    out = cupy.zeros((128 * groups, n // 2), np.float32)
    function((1, 1, 1), (128 * groups, 1, 1), (img, out, np.uint32(words)),
             shared_mem=len(image))
    cupy.cuda.runtime.deviceSynchronize()
    got = place(out.get(), n, groups)
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.nanmax(np.abs(got - want))) / float(np.abs(want).max())
    ok = not np.isnan(got).any() and err < 1e-3
    print(f"{name:58s} {'ok' if ok else 'WRONG'} (max error {err:.1e} of max |D|)", flush=True)
    return ok


def main():
    rng = np.random.default_rng(0)
    results = [
        case("A K-major 128B, B N-major 128B (trans-b), n64 k64", 64, 64, 128, False, 128, rng),
        case("A K-major 128B, B N-major 2 panels (LBO), n128 k64", 128, 64, 128, False, 128, rng),
        case("A K-major 2 panels (K 128), B N-major 128B, n64 k128", 64, 128, 128, False, 128, rng),
        case("A K-major 128B, B K-major 128B (no trans), n64 k64", 64, 64, 128, True, 128, rng),
        case("A K-major 64B (k32), B N-major 64B, n32 k32", 32, 32, 64, False, 64, rng),
        case("A K-major 32B (k16), B N-major 32B, n16 k16", 16, 16, 32, False, 32, rng),
        case("A K-major 128B, B N-major 128B, n256 k64", 256, 64, 128, False, 128, rng),
        case("2 warpgroups over M 128, A 2 K panels, B N-major 2 panels, n128 k128",
             128, 128, 128, False, 128, rng, groups=2),
    ]
    print("wgmma facts hold" if all(results) else "WGMMA FACTS DO NOT HOLD")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
