#!/usr/bin/env python3
"""BENCHMARKS.md's results table from a run's CSVs (bench/run.sh's OUT_DIR).

usage: bench/table.py OUT_DIR

One row per shape; per column the median TFLOP/s and, under it, the
relative error against fp64. tilec's cells are the best of its tiles, with
the ratio to the cuBLAS kind of the same row ("x") and that tile. Ratios are
recomputed from the TFLOP/s of the same run (bench_gemm's own ratio column
is per process, and the same). Rows whose status does not begin "ok" are left out
and listed on standard error.
"""
import csv
import sys
from collections import OrderedDict

# (header, impl, mode, the cuBLAS kind a tilec cell is a ratio of)
COLUMNS = [
    ("cuBLAS TF32", "cublas", "tf32", None),
    ("tilec tf32-rna sm_90a", "tilec", "tf32-rna", "tf32"),
    ("tilec tf32-rne sm_90a", "tilec", "tf32-rne", "tf32"),
    ("Triton tf32 (truncates)", "triton", "tf32", None),
    ("cuBLAS SGEMM", "cublas", "sgemm", None),
    ("tilec 3xtf32 sm_90a", "tilec", "3xtf32", "sgemm"),
    ("Triton tf32x3", "triton", "tf32x3", None),
    ("tilec ieee sm_90a", "tilec", "ieee", "sgemm"),
    ("Triton ieee", "triton", "ieee", None),
    ("cuBLAS bf16", "cublas", "bf16", None),
    ("tilec bf16 sm_90a", "tilec", "bf16", "bf16"),
    ("Triton bf16", "triton", "bf16", None),
]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def tile_name(t):
    """128x256x32w8g8 -> '128x256 g8'."""
    bm_bn = "x".join(t.split("x")[:2])
    return bm_bn + (" g" + t.split("g")[1] if "g" in t else "")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    data = rows(f"{out}/tilec_gemm.csv")
    try:
        data += rows(f"{out}/triton_gemm.csv")
    except FileNotFoundError:
        pass
    best = OrderedDict()  # shape -> (impl, mode) -> row
    for r in data:
        if not r["status"].startswith("ok"):  # ("ok launch-bound" too)
            print(f"left out: {r['impl']} {r['mode']} {r['tile']} {r['M']}x{r['N']}x{r['K']}: {r['status']}",
                  file=sys.stderr)
            continue
        shape = (int(r["M"]), int(r["N"]), int(r["K"]))
        key = (r["impl"], r["mode"])
        cell = best.setdefault(shape, {})
        if key not in cell or float(r["tflops"]) > float(cell[key]["tflops"]):
            cell[key] = r
    print("| shape | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for (m, n, k), cell in best.items():
        name = f"{m}³" if m == n == k else f"{m}×{n}×{k}"
        out_cells = []
        for _, impl, mode, base in COLUMNS:
            r = cell.get((impl, mode))
            if not r:
                out_cells.append("-")
                continue
            text = f"{float(r['tflops']):.1f}"
            if base and ("cublas", base) in cell:
                ratio = float(r["tflops"]) / float(cell[("cublas", base)]["tflops"])
                text += f" ({ratio:.2f}x) {tile_name(r['tile'])}"
            out_cells.append(f"{text}<br>{float(r['rel_err']):.2e}")
        print(f"| {name} | " + " | ".join(out_cells) + " |")


if __name__ == "__main__":
    main()
