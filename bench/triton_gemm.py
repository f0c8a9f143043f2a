#!/usr/bin/env python3
"""Triton and PyTorch (cuBLAS) GEMM baselines for tilec's bench_gemm.

Same problem and method as bench/bench_gemm.c, so the rows can sit in one
table: row-major A[M,K] @ B[K,N] -> C[M,N] in f32 (or bf16 inputs, f32
output); inputs from the same splitmix64 stream (bit-identical to the C
benchmark's); the same sampled rows checked against an fp64 product; copies
of A and B rotated so the inputs are not L2-resident; CUDA events around
back-to-back batches of launches, the median of >= --reps batches.

One difference, on purpose: each batch is a CUDA graph of launches, so that
Python's per-launch overhead (tens of microseconds, more than a 1024^3 TF32
GEMM takes) is not counted as kernel time. The C benchmark issues launches
directly and flags rows where the host could not keep up.

Rows: triton (a tile GEMM written for this benchmark, autotuned over five
configurations, tl.dot input_precision tf32 / tf32x3 / ieee, and bf16) and
torch (torch.matmul, i.e. cuBLAS: fp32, tf32, bf16) as the in-process
baseline. Also Triton's cold compile: the first call of one GEMM in a fresh
process with an empty TRITON_CACHE_DIR.

Uses only what the GPU machine has (torch, triton, numpy). Exit 77 without
a GPU.
"""
import time

_T_START = time.perf_counter()  # for the cold-compile child: before the heavy imports

import argparse
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

FAMILY_BASE = {"fp32": "torch-fp32", "tf32": "torch-tf32", "bf16": "torch-bf16"}
# Triton modes: (input_precision or "bf16", family for the baseline and the error bound)
TRITON_MODES = {"tf32": "tf32", "tf32x3": "fp32", "ieee": "fp32", "bf16": "bf16"}
ERROR_BOUND = {"fp32": 1e-5, "tf32": 5e-3, "bf16": 2e-2}
MAX_BATCHES = 500


def parse_shapes(text):
    shapes = []
    for part in text.split(","):
        dims = [int(x) for x in part.lower().split("x")]
        if len(dims) == 1:
            dims = dims * 3
        if len(dims) != 3 or min(dims) <= 0:
            raise argparse.ArgumentTypeError(f"bad shape {part!r}")
        shapes.append(tuple(dims))
    return shapes


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- inputs (the C benchmark's stream, bit for bit) ---------------------------------


def input_matrix(seed, rows, cols):
    """Element i (row-major) = top 24 bits of splitmix64(seed, i) * 2^-24 - 0.5."""
    import numpy as np

    n = rows * cols
    out = np.empty(n, dtype=np.float32)
    step = 1 << 22
    with np.errstate(over="ignore"):
        for s in range(0, n, step):
            i = np.arange(s + 1, min(n, s + step) + 1, dtype=np.uint64)
            z = np.uint64(seed) + i * np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z ^= z >> np.uint64(31)
            out[s : s + len(i)] = (z >> np.uint64(40)).astype(np.float32) * np.float32(2.0**-24) - np.float32(0.5)
    return out.reshape(rows, cols)


def sample_rows(M, n):
    n = min(n, M)
    return [0] if n == 1 else [r * (M - 1) // (n - 1) for r in range(n)]


# ---- the Triton kernel ------------------------------------------------------------------


def make_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr,
                    PREC: tl.constexpr):
        # Programs run in groups of GM tile-rows that sweep N together, so
        # the B tiles a group reads are shared through L2.
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GM * tiles_n
        first_m = (pid // per_group) * GM
        group_rows = tl.minimum(tiles_m - first_m, GM)
        pm = first_m + (pid % per_group) % group_rows
        pn = (pid % per_group) // group_rows
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            kk = k0 + rk
            a = tl.load(a_ptr + rm[:, None] * lda + kk[None, :],
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * ldb + rn[None, :],
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            if PREC == "bf16":
                acc = tl.dot(a, b, acc)
            else:
                acc = tl.dot(a, b, acc, input_precision=PREC)
        tl.store(c_ptr + rm[:, None] * ldc + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

    def cfg(bm, bn, bk, warps, stages):
        return triton.Config({"BM": bm, "BN": bn, "BK": bk, "GM": 8}, num_warps=warps, num_stages=stages)

    f32_configs = [cfg(128, 128, 32, 4, 3), cfg(128, 256, 32, 8, 3), cfg(256, 128, 32, 8, 3),
                   cfg(64, 128, 32, 4, 4), cfg(128, 128, 64, 8, 3)]
    bf16_configs = [cfg(128, 128, 64, 4, 4), cfg(128, 256, 64, 8, 3), cfg(256, 128, 64, 8, 3),
                    cfg(64, 128, 64, 4, 4), cfg(128, 128, 32, 4, 4)]
    # PREC is part of the key: a config tuned for tf32 says nothing about ieee
    tuned_f32 = triton.autotune(configs=f32_configs, key=["M", "N", "K", "PREC"])(gemm_kernel)
    tuned_bf16 = triton.autotune(configs=bf16_configs, key=["M", "N", "K", "PREC"])(gemm_kernel)
    return gemm_kernel, tuned_f32, tuned_bf16


# ---- timing ------------------------------------------------------------------------------


def time_launches(launch, ncopies, opts):
    """launch(i) issues one GEMM on input copy i % ncopies. Returns
    (median, min, max) ms per launch and the number of launches timed."""
    import torch

    for i in range(2):
        launch(i)
    torch.cuda.synchronize()
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ev0.record()
    for i in range(3):
        launch(i)
    ev1.record()
    ev1.synchronize()
    est = max(ev0.elapsed_time(ev1) / 3, 1e-4)
    # a batch walks every input copy, so the rotation holds inside a graph
    inner = max(ncopies, min(1000, math.ceil(opts.batch_ms / est)))
    batches = max(opts.reps, min(MAX_BATCHES, math.ceil(opts.target_ms / (inner * est))))
    graph = None
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # torch wants a warm-up on a side stream before capture
            launch(0)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(inner):
                launch(i)
    except Exception as e:  # noqa: BLE001 - any capture failure: time eagerly instead
        log(f"    (CUDA graph capture failed: {e}; timing eager launches)")
        graph = None
        torch.cuda.synchronize()

    def batch():
        if graph is not None:
            graph.replay()
        else:
            for i in range(inner):
                launch(i)  # same copies, same order as the graph

    for _ in range(max(1, math.ceil(opts.warmup_ms / (inner * est)))):
        batch()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(batches + 1)]
    events[0].record()
    for b in range(batches):
        batch()
        events[b + 1].record()
    events[-1].synchronize()
    t = sorted(events[b].elapsed_time(events[b + 1]) / inner for b in range(batches))
    return statistics.median(t), t[0], t[-1], batches * inner


# ---- one shape -----------------------------------------------------------------------------


def set_tf32(torch, on):
    """cuBLAS TF32 for f32 matmuls on or off (the new switch where torch has it)."""
    m = torch.backends.cuda.matmul
    if hasattr(m, "fp32_precision"):
        m.fp32_precision = "tf32" if on else "ieee"
    else:
        m.allow_tf32 = on


def run_shape(shape, opts, kernels, l2_bytes, cap):
    import torch
    import triton

    M, N, K = shape
    _, tuned_f32, tuned_bf16 = kernels
    t0 = time.perf_counter()
    A = torch.from_numpy(input_matrix(opts.seed, M, K)).cuda()
    B = torch.from_numpy(input_matrix(opts.seed + 1, K, N)).cuda()
    rows = sample_rows(M, opts.sample_rows)
    ridx = torch.tensor(rows, device="cuda")
    ref = A.index_select(0, ridx).double() @ B.double()
    ref_norm = ref.norm().item()
    log(f"  inputs and fp64 reference: {time.perf_counter() - t0:.1f} s")

    # copies of (A, B) until they exceed 4x L2, as in bench_gemm.c
    def copies(a, b):
        pair = (a.numel() + b.numel()) * a.element_size()
        n = max(1, min(256, math.ceil(4 * l2_bytes / pair)))
        return [a] + [a.clone() for _ in range(n - 1)], [b] + [b.clone() for _ in range(n - 1)]

    A32, B32 = copies(A, B)
    A16, B16 = copies(A.to(torch.bfloat16), B.to(torch.bfloat16))
    log(f"  inputs: {len(A32)} f32 copies, {len(A16)} bf16 copies")
    C = torch.empty(M, N, device="cuda", dtype=torch.float32)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
    variants = [("torch", m) for m in ("fp32", "tf32", "bf16")] + [("triton", m) for m in opts.modes]
    base, out = {}, []
    for impl, mode in variants:
        fam = TRITON_MODES[mode] if impl == "triton" else mode
        bf16 = mode == "bf16"
        As, Bs = (A16, B16) if bf16 else (A32, B32)
        n = len(As)
        kern = tuned_bf16 if bf16 else tuned_f32
        if impl == "torch" and not bf16:
            def launch(i, As=As, Bs=Bs, n=n):
                torch.matmul(As[i % n], Bs[i % n], out=C)
        elif impl == "torch":
            # torch's bf16 matmul (cuBLAS, f32 accumulation) returns bf16;
            # it is timed so, and its error includes that output rounding
            def launch(i, As=As, Bs=Bs, n=n):
                return torch.matmul(As[i % n], Bs[i % n])
        else:
            def launch(i, As=As, Bs=Bs, n=n, kern=kern, mode=mode):
                kern[grid](As[i % n], Bs[i % n], C, M, N, K, K, N, N, PREC=mode)
        row = dict(impl=impl, mode=mode, arch=cap, tile="-", M=M, N=N, K=K, baseline=FAMILY_BASE[fam],
                   host_us_per_launch=float("nan"))
        log(f"  {impl:6s} {mode:7s} ...")
        try:
            set_tf32(torch, mode == "tf32")
            C.fill_(float("nan"))
            res = launch(0)  # the first Triton call autotunes
            if res is not None:
                C.copy_(res.float())
            torch.cuda.synchronize()
            err = ((C.index_select(0, ridx).double() - ref).norm() / ref_norm).item()
            med, lo, hi, count = time_launches(launch, n, opts)
            if impl == "triton":
                best = kern.best_config
                kw = best.kwargs
                row["tile"] = f"{kw['BM']}x{kw['BN']}x{kw['BK']}w{best.num_warps}s{best.num_stages}"
            tflops = 2.0 * M * N * K / (med * 1e-3) / 1e12
            if impl == "torch":
                base[fam] = med
            ratio = base[fam] / med if fam in base else float("nan")
            status = "ok" if err <= ERROR_BOUND[fam] else "BAD-ERROR"
            row.update(ms_median=med, ms_min=lo, ms_max=hi, launches=count, tflops=tflops, ratio=ratio,
                       rel_err=err, status=status)
            log(f"    {med:.4f} ms {tflops:.1f} TFLOP/s x{ratio:.3f} err {err:.2e} {status} {row['tile']}")
        except Exception as e:  # noqa: BLE001 - report and go on with the next row
            msg = " ".join(str(e).split())[:140].replace(",", " ")
            log(f"    FAILED: {msg}")
            torch.cuda.synchronize()
            row.update(ms_median=float("nan"), ms_min=float("nan"), ms_max=float("nan"), launches=0,
                       tflops=float("nan"), ratio=float("nan"), rel_err=float("nan"), status=f"FAILED: {msg}")
        finally:
            set_tf32(torch, False)
        out.append(row)
    return out


# ---- cold compile ----------------------------------------------------------------------------


def cold_child(mode, size):
    """Runs in a fresh process with an empty TRITON_CACHE_DIR: imports, then
    the first and second call of one GEMM (fixed config, no autotuning)."""
    import torch

    t_import = time.perf_counter() - _T_START
    gemm_kernel, _, _ = make_kernels()
    dt = torch.bfloat16 if mode == "bf16" else torch.float32
    A = torch.rand(size, size, device="cuda").to(dt)
    B = torch.rand(size, size, device="cuda").to(dt)
    C = torch.empty(size, size, device="cuda")
    torch.cuda.synchronize()

    def call():
        t = time.perf_counter()
        grid = ((size + 127) // 128 * ((size + 127) // 128),)
        gemm_kernel[grid](A, B, C, size, size, size, size, size, size, BM=128, BN=128, BK=32, GM=8, PREC=mode,
                          num_warps=4, num_stages=3)
        torch.cuda.synchronize()
        return (time.perf_counter() - t) * 1e3

    first = call()
    second = call()
    print(json.dumps(dict(import_s=t_import, first_ms=first, second_ms=second,
                          to_first_result_s=time.perf_counter() - _T_START)))


def cold_compile(opts):
    rows = []
    for mode in ("tf32", "bf16"):
        samples = []
        for run in range(opts.cold_runs):
            cache = tempfile.mkdtemp(prefix="triton-cold-")
            env = dict(os.environ, TRITON_CACHE_DIR=cache)
            t = time.perf_counter()
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--cold-child", mode],
                               env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t
            shutil.rmtree(cache, ignore_errors=True)
            if p.returncode != 0:
                log(f"  cold compile {mode} failed:\n{p.stderr[-2000:]}")
                break
            r = json.loads(p.stdout.strip().splitlines()[-1])
            r["wall_s"] = wall
            samples.append(r)
            log(f"  cold {mode} run {run + 1}: first call {r['first_ms']:.0f} ms (second {r['second_ms']:.2f} ms), "
                f"process {wall:.2f} s")
        if not samples:
            continue

        def add(what, values, note):
            rows.append(dict(what=what, ms_median=statistics.median(values), ms_min=min(values),
                             ms_first=values[0], runs=len(values), note=note))

        add(f"triton first-call {mode}", [s["first_ms"] for s in samples],
            "first call of one GEMM (128x128x32 w4 s3 1024^3) in a fresh process with an empty "
            "TRITON_CACHE_DIR: compile + load + run")
        add(f"triton fresh-process {mode}", [s["wall_s"] * 1e3 for s in samples],
            "whole fresh python process: imports (torch/triton) + inputs + first call + second call")
        add(f"triton imports {mode}", [s["import_s"] * 1e3 for s in samples], "import torch/triton in that process")
    return rows


# ---- output ------------------------------------------------------------------------------------

COLUMNS = ["impl", "mode", "arch", "tile", "M", "N", "K", "ms_median", "ms_min", "ms_max", "launches", "tflops",
           "baseline", "ratio", "rel_err", "host_us_per_launch", "status"]


def write_csv(path, header, rows, columns):
    with open(path, "w", newline="") as f:
        f.write(header)
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def print_table(header, rows, compile_rows):
    print(header, end="")
    print(f"{'shape':16s} {'impl':6s} {'mode':7s} {'tile':15s} {'ms':>9s} {'TFLOP/s':>8s} {'vs torch':>9s} "
          f"{'rel.err':>9s}  status")
    for r in rows:
        shape = f"{r['M']}x{r['N']}x{r['K']}"
        ratio = "-" if math.isnan(r["ratio"]) else f"{r['ratio']:.3f}"
        err = "-" if math.isnan(r["rel_err"]) else f"{r['rel_err']:.2e}"
        print(f"{shape:16s} {r['impl']:6s} {r['mode']:7s} {r['tile']:15s} {r['ms_median']:9.4f} {r['tflops']:8.1f} "
              f"{ratio:>9s} {err:>9s}  {r['status']}")
    if compile_rows:
        print(f"\n{'compile time (GEMM kernel)':36s} {'median ms':>10s} {'min ms':>10s} {'first ms':>10s} runs")
        for c in compile_rows:
            print(f"{c['what']:36s} {c['ms_median']:10.1f} {c['ms_min']:10.1f} {c['ms_first']:10.1f} {c['runs']:4d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", type=parse_shapes, default=parse_shapes("1024,4096,8192,8191x8193x8190,4096x4096x64"))
    ap.add_argument("--modes", default="tf32,tf32x3,ieee,bf16")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--batch-ms", type=float, default=1.0)
    ap.add_argument("--target-ms", type=float, default=200.0)
    ap.add_argument("--warmup-ms", type=float, default=100.0)
    ap.add_argument("--l2-mb", type=float, default=0, help="default: read from the device")
    ap.add_argument("--sample-rows", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cold-runs", type=int, default=3, help="fresh processes per cold-compile figure (0: skip)")
    ap.add_argument("--out", help="GEMM results as CSV")
    ap.add_argument("--compile-out", help="cold-compile times as CSV")
    ap.add_argument("--cold-child", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    opts.modes = [m for m in opts.modes.split(",") if m]
    for m in opts.modes:
        if m not in TRITON_MODES:
            ap.error(f"unknown mode {m!r} (tf32, tf32x3, ieee, bf16)")

    try:
        import torch
        import triton
    except ImportError as e:
        print(f"triton_gemm: SKIP: {e}", file=sys.stderr)
        return 77
    if not torch.cuda.is_available():
        print("triton_gemm: SKIP: no GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 77
    if opts.cold_child:
        cold_child(opts.cold_child, 1024)
        return 0

    props = torch.cuda.get_device_properties(0)
    l2 = int(opts.l2_mb * 1e6) if opts.l2_mb > 0 else (getattr(props, "L2_cache_size", 0) or 50_000_000)
    cap = f"sm_{props.major}{props.minor}"
    header = (f"# triton {triton.__version__}; torch {torch.__version__} (CUDA {torch.version.cuda}); "
              f"{props.name} ({cap}); L2 {l2 / 1e6:.0f} MB; rotation >= 4x L2; "
              f"graph-captured batches >= {opts.batch_ms:g} ms; median of >= {opts.reps}\n")
    log(header.strip())
    kernels = make_kernels()
    rows = []
    for i, shape in enumerate(opts.shapes):
        log(f"[{i + 1}/{len(opts.shapes)}] {shape[0]}x{shape[1]}x{shape[2]}")
        rows += run_shape(shape, opts, kernels, l2, cap)
        torch.cuda.empty_cache()  # the shape's inputs went with run_shape
    compile_rows = []
    if opts.cold_runs > 0:
        log("Triton cold compile (fresh processes)")
        compile_rows = cold_compile(opts)
    print_table(header, rows, compile_rows)
    bad = sum(r["status"] != "ok" for r in rows)
    if bad:
        print(f"\nWARNING: {bad} row(s) did not pass (see status)")
    if opts.out:
        write_csv(opts.out, header, rows, COLUMNS)
    if opts.compile_out:
        write_csv(opts.compile_out, header, compile_rows, ["what", "ms_median", "ms_min", "ms_first", "runs", "note"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
