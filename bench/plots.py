#!/usr/bin/env python3
"""bench/README.md's main tables as pictures: speedups per shape as SVG,
drawn with matplotlib (the GPU machine's Python has it).

From the JSON the benchmarks write: bench/language_bench.py's (one chart a
workload: tilec against Triton's best config and against the library torch
runs, cuBLAS or scaled_dot_product_attention's backend), bench/matmul.py's
(each workload's best against Triton's best and cuBLAS) and
bench/llm_gemm.py's (tilec against Triton and cuBLAS per layer and M). The
scripts take --svg DIR to draw theirs after a run; this draws them again
from stored JSON:

    python3 bench/plots.py bench/attention-h200-two-stage-small.json \\
        bench/llm-gemm-h200.json --out bench/plots
"""
import argparse
import json
import os
import re

LIBRARY = {"cudnn": "SDPA (cuDNN)", "flash": "SDPA (FlashAttention)",
           "fmha": "SDPA (memory-efficient)", "efficient": "SDPA (memory-efficient)"}


def library_name(row):
    kernel = (row.get("torch_kernel") or "").lower()
    for part, name in LIBRARY.items():
        if part in kernel:
            return name
    if row.get("workload", "").startswith("matmul") or "gemm" in kernel:
        return "cuBLAS"
    return "torch"


def bar_chart(path, title, labels, series, ylabel):
    """Grouped bars, one group a label and one bar a series (name, values,
    None where not measured), a line at 1.0, the value over each bar."""
    import matplotlib
    matplotlib.use("Agg")
    # Text as text: a tenth of the size, and searchable.
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    width = 0.8 / max(1, len(series))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * len(labels) * len(series) + 2), 4.2))
    for i, (name, values) in enumerate(series):
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(labels))]
        pairs = [(x, v) for x, v in zip(xs, values) if v is not None]
        if not pairs:
            continue
        bars = ax.bar([x for x, _ in pairs], [v for _, v in pairs], width, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="svg")
    plt.close(fig)
    return path


def language(data, out, prefix=""):
    """One SVG a workload of language_bench.py's JSON."""
    written = []
    rows = [r for r in data["rows"] if r.get("summary") and r.get("tilec")]
    for workload in dict.fromkeys(r["workload"] for r in rows):
        mine = [r for r in rows if r["workload"] == workload]
        labels = [re.sub(r"^\S+ ", "", r.get("shape", workload)) for r in mine]
        triton = [r["tilec"] / r["triton_best"] if r.get("triton_best") else None
                  for r in mine]
        libraries = sorted({library_name(r) for r in mine if r.get("torch")})
        series = [("tilec / Triton's best", triton)]
        for library in libraries:
            series.append((f"tilec / {library}",
                           [r["tilec"] / r["torch"] if r.get("torch") and
                            library_name(r) == library else None for r in mine]))
        # torch has no fp8 attention: language_bench.py times SDPA on the
        # same values in fp16.
        library_dtype = ", the library's in fp16" if "fp8" in workload else ""
        title = (f"{workload}: tilec's best against Triton's and the library's "
                 f"({data.get('device', '')}, {mine[0]['unit']}{library_dtype}, "
                 f"above 1: tilec faster)")
        written.append(bar_chart(os.path.join(out, f"{prefix}{workload}.svg"), title, labels,
                                 series, "speedup"))
    return written


def llm_gemm(data, out, prefix=""):
    """One SVG of llm_gemm.py's JSON: tilec against Triton and cuBLAS."""
    rows = [r for r in data["rows"] if "tilec" in r]
    labels = [f"{r['name']} {r['dtype']} M={r['m']}" for r in rows]
    series = [(f"tilec / {who}", [r[key]["ms"] / r["tilec"]["ms"] if key in r else None
                                 for r in rows])
              for who, key in (("Triton", "triton"), ("cuBLAS", "cublas"))]
    title = (f"matmul on LLM layers: tilec against Triton and cuBLAS "
             f"({data.get('device', '')}, time ratio, above 1: tilec faster)")
    return [bar_chart(os.path.join(out, f"{prefix}llm-gemm.svg"), title, labels, series,
                      "speedup")]


def matmul(data, out, prefix=""):
    """One SVG of matmul.py's JSON (a list of workloads, each with its
    configurations' rows and cuBLAS): the best configuration of each side."""
    labels, triton, cublas = [], [], []
    for w in data:
        tilec = max((r["tilec"] for r in w["rows"] if r.get("tilec")), default=None)
        if not tilec:
            continue
        best = max((r["triton"] for r in w["rows"] if r.get("triton")), default=None)
        labels.append(w["workload"])
        triton.append(tilec / best if best else None)
        cublas.append(tilec / w["cublas"] if w.get("cublas") else None)
    title = "matmul: tilec's best against Triton's best and cuBLAS (above 1: tilec faster)"
    return [bar_chart(os.path.join(out, f"{prefix}matmul.svg"), title, labels,
                      [("tilec / Triton's best", triton), ("tilec / cuBLAS", cublas)],
                      "speedup")]


def draw(data, out, prefix=""):
    """The charts of one benchmark JSON, whichever script wrote it, their
    names after `prefix`."""
    os.makedirs(out, exist_ok=True)
    if isinstance(data, list):
        return matmul(data, out, prefix)
    rows = data.get("rows", [])
    if rows and "workload" in rows[0]:
        return language(data, out, prefix)
    if rows and "tried" in rows[0]:
        return llm_gemm(data, out, prefix)
    raise ValueError("not a language_bench.py, matmul.py or llm_gemm.py JSON")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="+")
    parser.add_argument("--out", default=".")
    args = parser.parse_args()
    for path in args.json:
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            for svg in draw(json.load(f), args.out, stem + "-"):
                print(svg)


if __name__ == "__main__":
    main()
