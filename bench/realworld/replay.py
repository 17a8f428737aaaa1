#!/usr/bin/env python3
"""Replays the launches triton_capture.py recorded through tile-run, on the
interpreter and on the GPU, and compares every buffer with what Triton left
in it: exactly for integers, within a tolerance of the dtype for floats.
Prints a table by project and by first error, and writes every result to
--json.

    python3 bench/realworld/replay.py --tile-run build/bin/tile-run \\
        --project liger=/tmp/capture/liger [--project ...] [--json out.json]

The kernels' sources are read from where the capture found them (the
projects' checkouts); nothing of theirs is part of tilec.
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

# Floats agree where each element is within rtol of Triton's, or within
# rtol of the buffer's largest magnitude: sums in another order, tf32
# products (Triton's default for fp32 tl.dot) and cancellation move
# elements by the dtype's precision relative to the terms, not to the
# result. Integers compare exactly; fp8 elements within one step of their
# format (Triton's fp32 '/' is PTX's approximate div.full.f32, so a value
# next to a rounding boundary may land on either side).
# An fp64 buffer often receives an fp32 result (Triton's tests store every
# op's into one), so its tolerance is a few fp32 steps. An fp32 buffer of a
# launch whose inputs include a narrower float takes that one's tolerance:
# arithmetic on bf16 tiles rounds to bf16 at each step (Triton sums bf16 in
# bf16), so a softmax's fp32 output from bf16 scores is as precise as bf16.
TOLERANCE = {"fp64": 3e-7, "fp32": 5e-3, "fp16": 1e-2, "bf16": 4e-2}
FP8_STEP = {"fp8e4nv": 2.0 ** -3, "fp8e5": 2.0 ** -2}


def literal(value):
    """A constexpr or scalar as -D and tile-run's arguments spell it."""
    kind, v = value["kind"], value["value"]
    if kind == "tuple":
        return "(" + ", ".join(literal(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if kind == "float":
        return repr(v)
    if kind in ("NoneType", "bool", "int", "dtype", "function", "str", "unknown"):
        return str(v)
    return str(v)


def command(args, launch, directory, backend, out):
    # A kernel the capture wrote out as a module of its own is kernel.py
    # beside its buffers; others are read where the project has them.
    cmd = [args.tile_run, os.path.join(directory, launch["file"]), "--kernel", launch["kernel"],
           "--grid", ",".join(map(str, launch["grid"])), "--backend", backend,
           "--num-warps", str(launch["num_warps"]),
           "--num-stages", str(launch["num_stages"]), "-o", out]
    for path in args.import_path:
        cmd += ["-I", path]
    signature, special = [], False
    for p in launch["params"]:
        entry = ""
        if "constexpr" in p:
            cmd += ["-D", f"{p['name']}={literal(p['constexpr'])}"]
        elif "tensor" in p:
            cmd.append(os.path.join(directory, p["name"] + ".before.npy"))
            if p["tensor"] in ("bf16", "fp8e4nv", "fp8e5", "i1"):
                entry, special = "*" + p["tensor"], True
        elif "descriptor" in p:
            d = p["descriptor"]
            cmd.append(os.path.join(directory, p["name"] + ".before.npy"))
            cmd += [str(v) for v in d["shape"] + d["strides"]]
            entry, special = f"tensordesc<{d['dtype']}{d['block']}>", True
        elif "scalar" in p:
            value = p["scalar"]
            if value["kind"] == "NoneType":
                cmd += ["-D", f"{p['name']}=None"]
            elif value["kind"] == "bool":
                cmd.append("1" if value["value"] else "0")
                entry, special = "i1", True
            else:
                cmd.append(literal(value))
        else:
            raise Unreplayable(f"a {p['other']} argument")
        signature.append(entry)
    if special:
        cmd += ["--signature", ", ".join(signature)]
    return cmd


class Unreplayable(Exception):
    """A launch tile-run cannot be given (an argument it has no form for)."""


def first_error(stderr):
    """The first error's message without its file and line: a class."""
    for line in stderr.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            text = m.group(1)
            text = re.sub(r"'[^']*'", "'…'", text)
            text = re.sub(r"\b\d+\b", "N", text)
            return text[:140]
    lines = [l for l in stderr.splitlines() if l.strip()]
    return (lines[-1] if lines else "no output")[:140]


def bf16_values(bits):
    """bf16 numbers from their 16-bit patterns."""
    if bits.dtype == np.float32:
        return bits
    return (bits.view(np.uint16).astype(np.uint32) << 16).view(np.float32)


def fp8_table(dtype):
    """The value of each fp8 bit pattern: e4m3fn (bias 7, no infinities,
    S.1111.111 NaN) or e5m2 (bias 15, IEEE-like)."""
    exponent_bits, bias = (4, 7) if dtype == "fp8e4nv" else (5, 15)
    mantissa_bits = 7 - exponent_bits
    bits = np.arange(256)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    scale = 2.0 ** mantissa_bits
    values = np.where(exponent == 0, mantissa / scale * 2.0 ** (1 - bias),
                      (1 + mantissa / scale) * 2.0 ** (exponent - bias))
    values = sign * values
    top = (1 << exponent_bits) - 1
    if dtype == "fp8e4nv":
        values[(exponent == top) & (mantissa == 7)] = np.nan
    else:
        values[(exponent == top) & (mantissa == 0)] = sign[(exponent == top) & (mantissa == 0)] * np.inf
        values[(exponent == top) & (mantissa != 0)] = np.nan
    return values


def reorders(launch, directory):
    """Whether the kernel lets the compiler reorder elements (tl.cat or
    tl.reshape with can_reorder=True): its buffers are compared as
    multisets, in any order."""
    path = os.path.join(directory, launch["file"])
    try:
        return re.search(r"can_reorder\s*=\s*True", open(path).read()) is not None
    except OSError:
        return False


def compare(launch, directory, out):
    """The first buffer that differs from Triton's, or None."""
    any_order = reorders(launch, directory)
    floats = [TOLERANCE[p["tensor"]] for p in launch["params"]
              if p.get("tensor") in TOLERANCE]
    loosest = max(floats, default=0.0)
    for p in launch["params"]:
        if "descriptor" in p:
            p = {"name": p["name"], "tensor": p["descriptor"]["dtype"]}
        if "tensor" not in p:
            continue
        want = np.load(os.path.join(directory, p["name"] + ".after.npy"))
        path = os.path.join(out, p["name"] + ".npy")
        if not os.path.exists(path):
            return f"{p['name']}: not written back"
        got = np.load(path)
        if got.size != want.size:
            return f"{p['name']}: {got.size} elements, Triton's {want.size}"
        got = got.reshape(want.shape)
        if any_order:
            got, want = np.sort(got, axis=None), np.sort(want, axis=None)
        dtype = p["tensor"]
        if dtype == "bf16":
            got, want = bf16_values(got), bf16_values(want)
        if dtype in FP8_STEP:
            table = fp8_table(dtype)
            g, w = table[got.view(np.uint8)], table[want.view(np.uint8)]
            ok = np.isclose(g, w, rtol=FP8_STEP[dtype], atol=0, equal_nan=True)
            if not ok.all():
                i = int(np.argmin(ok))
                return (f"{p['name']}: {int((~ok).sum())} of {ok.size} differ, "
                        f"first at {i}: {g.flat[i]!r} vs Triton's {w.flat[i]!r}")
            continue
        if dtype in TOLERANCE:
            rtol = max(TOLERANCE[dtype], loosest) if dtype == "fp32" else TOLERANCE[dtype]
            g, w = got.astype(np.float64), want.astype(np.float64)
            finite = np.isfinite(w)
            scale = np.abs(w[finite]).max() if finite.any() else 0.0
            ok = np.isclose(g, w, rtol=rtol, atol=rtol * scale, equal_nan=True)
            if not ok.all():
                i = int(np.argmin(ok))
                return (f"{p['name']}: {int((~ok).sum())} of {ok.size} differ, "
                        f"first at {i}: {g.flat[i]!r} vs Triton's {w.flat[i]!r}")
        elif not np.array_equal(got.view(want.dtype), want):
            i = int(np.argmax(got.view(want.dtype) != want))
            return f"{p['name']}: differs at {i}: {got.flat[i]} vs Triton's {want.flat[i]}"
    return None


def replay(args, directory):
    with open(os.path.join(directory, "launch.json")) as f:
        launch = json.load(f)
    result = {"launch": directory, "file": launch["file"], "kernel": launch["kernel"]}
    for backend in args.backends:
        with tempfile.TemporaryDirectory() as out:
            try:
                cmd = command(args, launch, directory, backend, out)
            except Unreplayable as e:
                result[backend] = "unreplayable: " + str(e)
                continue
            start = time.time()
            try:
                run = subprocess.run(cmd, capture_output=True, text=True,
                                     timeout=args.timeout[backend])
            except subprocess.TimeoutExpired:
                result[backend] = "timeout"
                continue
            result[backend + "_s"] = round(time.time() - start, 2)
            if run.returncode:
                result[backend] = "error: " + first_error(run.stderr)
                result[backend + "_stderr"] = run.stderr[-2000:]
                continue
            mismatch = compare(launch, directory, out)
            result[backend] = "mismatch: " + mismatch if mismatch else "pass"
            if mismatch and args.keep_failures:
                keep(args, directory, out, backend)
    return result


def keep(args, directory, out, backend):
    """Copies a mismatching launch (what Triton read and wrote, and what
    tile-run wrote) to --keep-failures, where it is small enough to carry."""
    size = sum(os.path.getsize(os.path.join(d, f)) for d in (directory, out)
               for f in os.listdir(d))
    if size > args.keep_bytes:
        return
    target = os.path.join(args.keep_failures, os.path.basename(directory))
    shutil.copytree(directory, target, dirs_exist_ok=True)
    shutil.copytree(out, os.path.join(target, backend), dirs_exist_ok=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tile-run", required=True)
    parser.add_argument("--project", action="append", required=True,
                        help="NAME=CAPTURE_DIR")
    parser.add_argument("--backends", default="interp,cuda")
    parser.add_argument("--interp-timeout", type=float, default=120)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("-I", dest="import_path", action="append", default=[],
                        help="a directory tile-run searches for imported modules")
    parser.add_argument("--json")
    parser.add_argument("--keep-failures", metavar="DIR",
                        help="copy each mismatching launch here, with tile-run's buffers")
    parser.add_argument("--keep-bytes", type=int, default=8 << 20)
    args = parser.parse_args()
    args.backends = args.backends.split(",")
    args.timeout = {"interp": args.interp_timeout, "cuda": 120}

    table, results = [], []
    for spec in args.project:
        name, capture = spec.split("=", 1)
        launches = sorted(d for d in glob.glob(os.path.join(capture, "*"))
                          if os.path.exists(os.path.join(d, "launch.json")))
        classes = collections.Counter()
        passed = collections.Counter()
        def run_one(directory):
            r = replay(args, directory)
            print(f"{name} {r['kernel']:40s} " +
                  " ".join(f"{b}={r.get(b)}" for b in args.backends), flush=True)
            return r

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            replays = list(pool.map(run_one, launches))
        for r in replays:
            r["project"] = name
            results.append(r)
            for backend in args.backends:
                if r.get(backend) == "pass":
                    passed[backend] += 1
                else:
                    classes[f"{backend}: {r.get(backend)}"] += 1
            both = all(r.get(b) == "pass" for b in args.backends)
            passed["both"] += both
        skipped = collections.Counter()
        for f in glob.glob(os.path.join(capture, "skipped.*.json")):
            skipped.update(json.load(open(f)))
        table.append((name, len(launches), passed, classes, skipped))

    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print()
    for name, n, passed, classes, skipped in table:
        print(f"== {name}: {n} launches captured; " +
              ", ".join(f"{b} {passed[b]} ({100 * passed[b] / max(n, 1):.1f}%)"
                        for b in args.backends + ["both"]))
        for text, count in classes.most_common():
            print(f"   {count:5d}  {text}")
        if skipped:
            print("   not captured: " + ", ".join(f"{k} {v}" for k, v in skipped.items()))


if __name__ == "__main__":
    sys.exit(main())
