#!/usr/bin/env python3
"""Plots GEMM TFLOP/s by shape from the benchmark CSVs.

usage: plot.py RESULTS.csv [MORE.csv ...] [-o bench/gemm_tflops.svg]

Reads the CSVs written by bench_gemm (--out) and bench/triton_gemm.py
(--out): '#' lines are metadata, then one row per kernel and shape. Draws
one panel per kind of arithmetic (fp32-accurate, TF32, bf16), a group of
bars per shape and a bar per implementation and mode; where a mode ran with
several tiles or targets, the panel shows each target's best tile. Rows that
failed or whose error check did not pass are left out (and listed).
"""
import argparse
import csv
import math
import os
import sys
from collections import OrderedDict

# (panel title, modes that belong to it, by implementation)
PANELS = [
    ("fp32-accurate (ieee / 3xTF32 / SGEMM)",
     {"cublas": {"sgemm"}, "torch": {"fp32"}, "tilec": {"ieee", "3xtf32"}, "triton": {"ieee", "tf32x3"}}),
    ("TF32", {"cublas": {"tf32"}, "torch": {"tf32"}, "tilec": {"tf32-trunc", "tf32-rna", "tf32-rne"},
              "triton": {"tf32"}}),
    ("bf16 inputs, f32 accumulation", {"cublas": {"bf16"}, "torch": {"bf16"}, "tilec": {"bf16"},
                                       "triton": {"bf16"}}),
]


def read_rows(paths):
    rows, meta = [], []
    for path in paths:
        with open(path, newline="") as f:
            lines = []
            for line in f:
                if line.startswith("#"):
                    meta.append(line[1:].strip())
                else:
                    lines.append(line)
        rows += list(csv.DictReader(lines))
    return rows, meta


def usable(row):
    try:
        t = float(row["tflops"])
    except (KeyError, ValueError):
        return False
    return row.get("status", "").startswith("ok") and math.isfinite(t) and t > 0


def label(row):
    impl = {"cublas": "cuBLAS", "torch": "cuBLAS via torch", "tilec": "tilec", "triton": "Triton"}.get(
        row["impl"], row["impl"])
    arch = f" {row['arch']}" if row["impl"] == "tilec" else ""
    return f"{impl} {row['mode']}{arch}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="GEMM TFLOP/s by shape, from the benchmark CSVs")
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--output", default=os.path.join(here, "gemm_tflops.svg"))
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, meta = read_rows(args.csv)
    skipped = [r for r in rows if not usable(r)]
    for r in skipped:
        print(f"left out: {label(r)} {r['M']}x{r['N']}x{r['K']} {r['tile']}: {r.get('status', '?')}",
              file=sys.stderr)
    rows = [r for r in rows if usable(r)]
    if not rows:
        print("plot.py: no usable rows", file=sys.stderr)
        return 1
    shapes = list(OrderedDict.fromkeys(f"{r['M']}x{r['N']}x{r['K']}" for r in rows))

    fig, axes = plt.subplots(len(PANELS), 1, figsize=(13, 4.2 * len(PANELS)), squeeze=False)
    for ax, (title, members) in zip(axes[:, 0], PANELS):
        best = OrderedDict()  # label -> shape -> (tflops, tile)
        for r in rows:
            if r["mode"] not in members.get(r["impl"], ()):
                continue
            shape = f"{r['M']}x{r['N']}x{r['K']}"
            cur = best.setdefault(label(r), {}).get(shape)
            if cur is None or float(r["tflops"]) > cur[0]:
                best[label(r)][shape] = (float(r["tflops"]), r["tile"])
        if not best:
            ax.set_visible(False)
            continue
        n = len(best)
        width = 0.8 / n
        for i, (name, by_shape) in enumerate(best.items()):
            xs = [s + (i - (n - 1) / 2) * width for s in range(len(shapes))]
            ys = [by_shape.get(shape, (0, ""))[0] for shape in shapes]
            bars = ax.bar(xs, ys, width, label=name)
            for b, y in zip(bars, ys):
                if y > 0:
                    ax.annotate(f"{y:.0f}", (b.get_x() + b.get_width() / 2, y), ha="center", va="bottom",
                                fontsize=6, rotation=90, xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes)
        ax.margins(y=0.12)  # room for the value labels
        ax.set_ylabel("TFLOP/s")
        ax.set_title(title)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if meta:
        fig.suptitle("\n".join(dict.fromkeys(meta)), fontsize=7, y=1.0)
    fig.tight_layout()
    fig.savefig(args.output, bbox_inches="tight")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
