#!/usr/bin/env python3
"""The tensor cores' sustained wgmma throughput on this GPU: the ceiling a
matmul can reach once every byte is in shared memory, for each input type.

One CTA per multiprocessor, `--groups` warpgroups each, issues
m64n256kK wgmmas on random operands (zeros draw less power and run
faster) that never leave shared memory, in groups of four K steps with
one group in flight, for about a second; CUDA events time it, and
nvidia-smi reads the SM clock and power right after. Hand-written PTX
through CuPy, like wgmma_probe.py; needs an sm_90 GPU.

    python3 bench/wgmma_peak.py [--groups 2] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

# (PTX input type, bytes per element, K of one instruction)
TYPES = {"tf32": ("tf32", 4, 8), "f16": ("f16", 2, 16), "bf16": ("bf16", 2, 16),
         "e4m3": ("e4m3", 1, 32)}
N = 256
STEPS = 4  # K steps per commit group: one 128-byte swizzled row of K


def descriptor(address_reg, out_reg, sbo=1024):
    """PTX computing a K-major, 128-byte swizzled operand descriptor."""
    constant = 1 << 62 | (sbo >> 4) << 32 | 1 << 16
    return [f"  shr.u32 %r20, {address_reg}, 4;", "  and.b32 %r20, %r20, 16383;",
            "  cvt.u64.u32 %rd20, %r20;", f"  or.b64 {out_reg}, %rd20, {constant:#x};"]


def ptx(kind, groups):
    ptx_type, _, k = TYPES[kind]
    regs = N // 2
    d = "{" + ", ".join(f"%f{i}" for i in range(regs)) + "}"
    transpose = "" if kind in ("tf32", "e4m3") else ", 0, 0"
    a_bytes = 64 * groups * 128          # A: 64 rows per warpgroup, 128 B each
    lines = [
        ".version 8.0", ".target sm_90a", ".address_size 64",
        ".extern .shared .align 1024 .b8 smem[];",
        ".visible .entry peak(.param .u64 p_src, .param .u32 p_words, "
        ".param .u32 p_iters, .param .u64 p_out)",
        f".reqntid {128 * groups}, 1, 1", "{",
        f"  .reg .f32 %f<{regs}>;", "  .reg .b32 %r<32>;", "  .reg .b64 %rd<32>;",
        "  .reg .pred %p<4>;",
        "  ld.param.u64 %rd1, [p_src];", "  ld.param.u32 %r1, [p_words];",
        "  ld.param.u32 %r13, [p_iters];", "  ld.param.u64 %rd2, [p_out];",
        "  mov.u32 %r2, %tid.x;", "  mov.u32 %r3, smem;", "  mov.u32 %r4, %r2;",
        "COPY:",
        "  setp.ge.u32 %p1, %r4, %r1;", "  @%p1 bra COPIED;",
        "  mul.wide.u32 %rd3, %r4, 4;", "  add.s64 %rd4, %rd1, %rd3;",
        "  ld.global.u32 %r5, [%rd4];", "  shl.b32 %r6, %r4, 2;",
        "  add.u32 %r7, %r3, %r6;", "  st.shared.u32 [%r7], %r5;",
        f"  add.u32 %r4, %r4, {128 * groups};", "  bra COPY;",
        "COPIED:",
        "  fence.proxy.async.shared::cta;", "  bar.sync 0;",
        # This warpgroup's 64 rows of A; B after all of A.
        "  shr.u32 %r10, %r2, 7;", "  shl.b32 %r11, %r10, 13;",
        "  add.u32 %r12, %r3, %r11;", f"  add.u32 %r14, %r3, {a_bytes};",
    ]
    lines += [f"  mov.f32 %f{i}, 0f00000000;" for i in range(regs)]
    lines += ["  mov.u32 %r15, 0;", "LOOP:", "  wgmma.fence.sync.aligned;"]
    for s in range(STEPS):
        lines += [f"  add.u32 %r16, %r12, {32 * s};"] + descriptor("%r16", "%rd6")
        lines += [f"  add.u32 %r17, %r14, {32 * s};"] + descriptor("%r17", "%rd8")
        lines += [f"  wgmma.mma_async.sync.aligned.m64n{N}k{k}.f32.{ptx_type}.{ptx_type} "
                  f"{d}, %rd6, %rd8, 1, 1, 1{transpose};"]
    lines += ["  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 1;",
              "  add.u32 %r15, %r15, 1;", "  setp.lt.u32 %p2, %r15, %r13;",
              "  @%p2 bra LOOP;", "  wgmma.wait_group.sync.aligned 0;"]
    # One sum per thread, so that nothing is dead.
    lines += [f"  add.f32 %f0, %f0, %f{i};" for i in range(1, regs)]
    lines += ["  mov.u32 %r18, %ctaid.x;", f"  mad.lo.u32 %r19, %r18, {128 * groups}, %r2;",
              "  mul.wide.u32 %rd9, %r19, 4;", "  add.s64 %rd10, %rd2, %rd9;",
              "  st.global.f32 [%rd10], %f0;", "  ret;", "}"]
    return "\n".join(lines) + "\n"


def smi():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,power.draw",
                              "--format=csv,noheader,nounits"], capture_output=True,
                             text=True, timeout=10).stdout.strip().splitlines()[0]
        clock, max_clock, power = (x.strip() for x in out.split(","))
        return {"sm_mhz": float(clock), "max_sm_mhz": float(max_clock), "watts": float(power)}
    except Exception as error:  # nvidia-smi missing or unreadable
        return {"smi_error": str(error)[:100]}


def measure(kind, groups, seconds):
    import cupy
    _, elem_bytes, k = TYPES[kind]
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    smem = 64 * groups * 128 + N * 128
    rng = np.random.default_rng(0)
    if kind == "tf32":
        words = rng.standard_normal(smem // 4).astype(np.float32).view(np.uint32)
    elif kind == "e4m3":
        words = rng.integers(0, 1 << 32, smem // 4, dtype=np.uint64).astype(np.uint32)
        words &= 0x77777777  # finite e4m3 values, no NaN patterns
    else:
        words = rng.standard_normal(smem // 2).astype(np.float16).view(np.uint32)
    src = cupy.asarray(words)
    out = cupy.zeros(sms * 128 * groups, cupy.float32)
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(ptx(kind, groups))
    kernel = cupy.RawModule(path=f.name).get_function("peak")
    os.unlink(f.name)
    kernel.max_dynamic_shared_size_bytes = smem
    flop_per_iter = groups * STEPS * 2 * 64 * N * k

    def run(iters):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        kernel((sms,), (128 * groups,), (src, np.uint32(src.size), np.uint32(iters), out),
               shared_mem=smem)
        stop.record()
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop) / 1e3

    run(1000)
    iters = max(1000, int(1000 * seconds / max(run(1000), 1e-6)))
    times = [run(iters) for _ in range(3)]
    clocks = smi()
    best = min(times)
    return {"type": kind, "groups": groups, "iters": iters,
            "tflops": sms * flop_per_iter * iters / best / 1e12,
            "seconds": best, "finite": bool(cupy.isfinite(out).all()), **clocks}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=2, help="warpgroups per CTA")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--types", default="tf32,f16,bf16,e4m3")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = [measure(kind, args.groups, args.seconds) for kind in args.types.split(",")]
    for row in rows:
        print(f"wgmma m64n{N} {row['type']:5s} x{row['groups']} warpgroups: "
              f"{row['tflops']:7.1f} TFLOP/s  SM clock {row.get('sm_mhz', '?')} MHz "
              f"(max {row.get('max_sm_mhz', '?')}), {row.get('watts', '?')} W")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
