#!/usr/bin/env python3
"""Session 39: the whole tilec process, two static builds interleaved, median of 7 (build machine,
2 cores). OLD/NEW: the builds' tilec; the kernels: examples/seed.tir, seed.tir at 128 (sed
s/64/128/g), attn.tir (this folder), the benchmark's GEMMs (bench_gemm --source=f32
--cfg=128x256x32w8g8 > g256.tir, --cfg=128x128x32w8g8 > g128.tir) in KDIR.
    OLD=/tmp/b-old-static/tilec NEW=/tmp/b-static/tilec KDIR=/tmp/k python3 compile_times.py"""
import os, statistics, subprocess, time
O, N, K = os.environ['OLD'], os.environ['NEW'], os.environ.get('KDIR', '.')
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, '..', '..', '..')
cases = [('seed 64^3', [os.path.join(root, 'examples/seed.tir')]), ('seed 128^3', [os.path.join(K, 'seed128.tir')]),
         ('attn', [os.path.join(here, 'attn.tir')]), ('g256 rna sm_90a', [os.path.join(K, 'g256.tir')]),
         ('g256 rna sm_80', ['--arch=sm_80', os.path.join(K, 'g256.tir')]),
         ('g128 3xtf32 sm_80', ['--arch=sm_80', '--precision=3xtf32', os.path.join(K, 'g128.tir')])]
for name, args in cases:
    t = {O: [], N: []}
    for _ in range(7):
        for b in (O, N):
            s = time.perf_counter()
            subprocess.run([b] + args + ['-o', '/dev/null'], check=True, stderr=subprocess.DEVNULL)
            t[b].append((time.perf_counter() - s) * 1e3)
    print(f"{name}: old {statistics.median(t[O]):.1f} ms, new {statistics.median(t[N]):.1f} ms")
