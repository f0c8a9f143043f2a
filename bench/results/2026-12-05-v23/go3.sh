# Session 20, third device call (at most 5 minutes), what v20 left unrun:
# 1. -fwgmma-one-producer (384 threads, as cuBLAS's TF32 kernel): gpu_test_gemm quick, then its
#    speed against the default's (JIT kernels), cuBLAS in each process. Predicted (v20): the same
#    at locked clocks for rne; free-running a few percent if the fourth warpgroup's spinning costs
#    power; rna may lose.
# 2. The persistent cluster kernel on an odd number of programs (fc9ef18's fix of go3's hang):
#    300x520x336 at 128x128, tf32-rne and tf32-rna.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v23/go3.sh
. bench/device/env.sh
S=$SECONDS
L=${OUT:-/tmp}
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-one-producer timeout 100 $B/bin/gpu_test_gemm > $L/gemm_op.log 2>&1
echo "one-producer gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 $L/gemm_op.log; grep -B2 FAIL $L/gemm_op.log | head
for c in "--copt=-fwgmma-one-producer" ""; do echo "== ${c:-two producers}"
  timeout 70 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=100 --compile-runs=1 $c 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
  echo "t=$((SECONDS-S))"
done
for m in tf32-rne tf32-rna; do
  out=$(timeout 15 $B/bin/bench_gemm --archs=sm_90a --modes=$m --shapes=300x520x336 --cfg=128x128x32w8 --no-cublas \
    --copt=-fwgmma-tma-only --copt=-fwgmma-cluster --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --reps=1 --compile-runs=1 2>&1)
  echo "cluster persistent $m 300x520x336 exit $? : $(echo "$out" | grep -E '^[0-9]+x.*tilec' | tail -1)"
done
echo "t=$((SECONDS-S))"
