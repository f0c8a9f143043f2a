# session 15: the fifth device call (same carry): the experimental -fwgmma-tma-only against the default,
# speed and compile rows (the same TMA path without the copies it does not need: expect the same speed,
# and compile/JIT about two thirds; bf16 much less), after notrun_go2.sh's gpu_test_gemm with it passed.
. bench/device/env.sh
S=$SECONDS
bb() { timeout 120 "$@" --no-cublas --archs=sm_90a --target-ms=40 --warmup-ms=100 --compile-runs=3 \
  --shapes=8192,4096,8191x8193x8190,4096x4096x64 --modes=tf32-rna,tf32-rne,bf16 --cfg=128x256x32w8g8,128x128x32w8g8 2>&1 | grep -E '^[0-9]+x|rror|^process|^jit|^compile'; }
for r in 1 2; do
  echo tma-only; bb $B/bin/bench_gemm --tilec=$B/tilec --copt=-fwgmma-tma-only
  echo default; bb $B/bin/bench_gemm --tilec=$B/tilec
done > $OUT/tma_only.log; cat $OUT/tma_only.log
echo "t=$((SECONDS-S))"
