# NOT RUN (session 17's device time ran out): the next session's second call (about 7 minutes).
# -fwgmma-one-producer (384 threads as cuBLAS's TF32 kernel; built after session 17's device time ran
# out): correctness first (quick), then speed against the default with cuBLAS in each process, twice.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v20/notrun_go5.sh
. bench/device/env.sh
S=$SECONDS
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-one-producer timeout 150 $B/bin/gpu_test_gemm > /tmp/op.log 2>&1
echo "one-producer gpu_test_gemm exit $?"; tail -1 /tmp/op.log; grep -B2 FAIL /tmp/op.log | head
for r in 1 2; do for c in "--copt=-fwgmma-one-producer" ""; do echo "== ${c:-two producers}"
  timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fwgmma-tma-only $c 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
done; done
echo "t=$((SECONDS-S))"
