# Session 22, second device call (at most 9.5 minutes): the benchmark with cuBLAS and Triton in the
# same run (bench/run.sh, sm_90a, the default tiles) at 600d1ea (role functions and 3xtf32's one
# group a stage by default), then the GPU tests the new defaults touch (quick sets).
# Pack with OLD=14fddd6 bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v25/go2.sh
. bench/device/env.sh
S=$SECONDS; R=${OUT:-/tmp}/res; mkdir -p $R
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a --compile-runs=3"
timeout 380 bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^[0-9]+x' $R/full/tilec_gemm.log | awk '{print $1,$2,$3,$4,$5,$7,$8,$9}'
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -30
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -40
for t in accuracy persistent preround ops; do
  left=$((560 - SECONDS + S)); [ $left -lt 15 ] && break; [ $left -gt 60 ] && left=60
  q=1; [ $t = accuracy ] && q=0   # accuracy: K = 8192, where 3xtf32's sums are checked
  TILEC_GPU_QUICK=$q timeout $left $B/bin/gpu_test_$t > $R/test_$t.log 2>&1; echo "gpu_test_$t exit $? t=$((SECONDS-S))"; tail -1 $R/test_$t.log
done
echo "t=$((SECONDS-S))"
