# Session 22, first device call (at most 9 minutes).
# 1. The new defaults (-frole-functions on, the consumers' setmaxnreg first): gpu_test_gemm quick.
# 2. 3xtf32 at 128x128 (the benchmark's 3xtf32 tile), default against -fwgmma-x3-one-group
#    (one wgmma group and one wait a stage instead of two) and -fwgmma-x3-pair (sums over two
#    stages, k-overlap's groups: a wait for all every second stage), two interleaved rounds,
#    cuBLAS SGEMM in each process. Predicted: if the waits for all are what holds 3xtf32 at the
#    128x128 tile's tf32 rate, one-group +5-10%, pair +10-25% (its error up to ~2x the
#    default's, still under SGEMM's); if the m64n128 wgmma rate is, the same.
# 3. Compile rows on this machine's 16 cores: the whole tilec process, old (14fddd6: role functions
#    off) against new, interleaved, the 128x256 g8 kernel (tf32-rna default) and tf32-rne.
# 4. The JIT's default kernels (TMA only: not split; the setmaxnreg move applies), old against new,
#    tf32-rna and tf32-rne at 4096^3 / 8192^3, cuBLAS TF32 in each process.
# Pack with OLD=14fddd6 bench/device/pack.sh (session 22: a pack of 9c09bcb), carry ["carry"], command: bash bench/results/2026-12-05-v25/go1.sh
. bench/device/env.sh
S=$SECONDS
L=${OUT:-/tmp}
TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $L/gemm_default.log 2>&1
echo "gpu_test_gemm (defaults) exit $? t=$((SECONDS-S))"; tail -1 $L/gemm_default.log; grep -B2 FAIL $L/gemm_default.log | head
for r in 1 2; do for c in "" --copt=-fwgmma-x3-one-group --copt=-fwgmma-x3-pair; do
  echo "== 3xtf32 ${c:-default} round $r"
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --shapes=4096,8192 --cfg=128x128x32w8 \
    --target-ms=40 --warmup-ms=50 --compile-runs=1 $c > $L/x3_r${r}${c#--copt=-fwgmma}.log 2>&1
  grep -E '^[0-9]+x.*(tilec|cublas sgemm)' $L/x3_r${r}${c#--copt=-fwgmma}.log; echo "t=$((SECONDS-S))"
done; done
for r in 1 2; do for v in old new; do
  if [ $v = old ]; then t=$OLD_B/tilec_static; else t=$B/tilec; fi
  for m in tf32-rna tf32-rne; do echo "== compile $v $m round $r"
  timeout 45 $B/bin/bench_gemm --compile-only --tilec=$t --cfg=128x256x32w8g8 --modes=$m \
    --archs=sm_90a --compile-runs=11 2>&1 | grep -E 'process sm_90a'
  done
done; done
echo "t=$((SECONDS-S))"
for v in old new; do
  if [ $v = old ]; then bg="env LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH $OLD_B/bench_gemm"; else bg=$B/bin/bench_gemm; fi
  echo "== JIT default $v"
  timeout 60 $bg --archs=sm_90a --modes=tf32-rna,tf32-rne --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=50 --compile-runs=1 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
done
echo "t=$((SECONDS-S))"
