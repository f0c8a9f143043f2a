# NOT RUN (session 18: no device machine was lent): the call after notrun_go1.sh (about 5 minutes).
# The JIT's default kernels (-fwgmma-tma-only) with this session's shorter consumer K loops, twice
# with cuBLAS in each process (compare with session 17's ratios: tf32-rna 0.86x / 0.86x, tf32-rne
# 0.95x / 0.93x at 4096^3 / 8192^3), then the whole-process compile rows with and without
# -frole-functions (the tf32-rna kernel: two entries, four units) on this machine's 16 cores.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v21/notrun_go2.sh
. bench/device/env.sh
S=$SECONDS
for r in 1 2; do echo "== JIT default, round $r"
  timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=100 --compile-runs=1 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
done
# ieee: the FMA consumers' offsets before the K loop (2267 -> 2205 instructions at 128x128): against
# session 16/17's 0.76x / 0.79x SGEMM at 4096^3 / 8192^3
timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192 --cfg=128x128x32w8 \
  --target-ms=30 --warmup-ms=50 --compile-runs=1 2>&1 | grep -E '^[0-9]+x.*(sgemm|ieee)'
for c in --copt=-frole-functions ""; do echo "== compile ${c:-default}"
  timeout 60 $B/bin/bench_gemm --compile-only --tilec=$B/tilec --cfg=128x256x32w8g8,128x128x32w8g8 \
    --archs=sm_90a --compile-runs=11 $c 2>&1 | grep -E 'process|compile sm'
done
echo "t=$((SECONDS-S))"
