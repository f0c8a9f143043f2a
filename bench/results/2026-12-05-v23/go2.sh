# Session 20, second device call (at most 9 minutes).
# 1. -frole-functions: gpu_test_gemm, then its full kernel against the default's, cuBLAS in each.
# 2. Compile rows on this machine's 16 cores, with and without -frole-functions.
# 3. The bf16 edge copy path as a loop (603d4aa): (go1's gpu_test_gemm ran its bf16 cases), old (fbe7e1c,
#    unrolled) against new on the full kernel (-fno-wgmma-tma-only: the JIT's default stages odd
#    views instead) at the odd shape and 8192^3, cuBLAS bf16 in each process. Predicted: the same
#    speed within the spread (the loads of a batch still wait for memory once).
# Pack with OLD=fbe7e1c bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v23/go2.sh
. bench/device/env.sh
S=$SECONDS
L=${OUT:-/tmp}
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-frole-functions timeout 120 $B/bin/gpu_test_gemm > $L/gemm_rf.log 2>&1
echo "role-functions gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 $L/gemm_rf.log; grep -B2 FAIL $L/gemm_rf.log | head
for c in --copt=-frole-functions ""; do
  echo "== full kernel ${c:-default}"
  timeout 70 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fno-wgmma-tma-only $c > $L/full${c:+_rf}.log 2>&1
  grep -E '^[0-9]+x.*(tilec|cublas tf32)' $L/full${c:+_rf}.log; echo "t=$((SECONDS-S))"
done
for c in --copt=-frole-functions ""; do echo "== compile ${c:-default}"
  timeout 45 $B/bin/bench_gemm --compile-only --tilec=$B/tilec --cfg=128x256x32w8g8 \
    --archs=sm_90a --compile-runs=11 $c 2>&1 | grep -E 'process|compile sm'
done
for r in 1 2; do for v in old new; do
  if [ $v = old ]; then bg="env LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH $OLD_B/bench_gemm"; else bg=$B/bin/bench_gemm; fi
  echo "== bf16 full kernel $v round $r"
  timeout 45 $bg --archs=sm_90a --modes=bf16 --shapes=8191x8193x8190,8192 --cfg-bf16=128x256x64w8 \
    --target-ms=30 --warmup-ms=50 --compile-runs=1 --copt=-fno-wgmma-tma-only 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas bf16)'
done; done
echo "t=$((SECONDS-S))"
