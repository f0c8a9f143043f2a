# Session 20, first device call (at most 7 minutes): what no GPU has run since session 17, the
# current defaults first.
# 1. gpu_test_gemm with the defaults (session 18's swapped_frags: shorter consumer K loops; this
#    session's bf16 edge copy loop, 603d4aa: its bf16 cases load the full kernel).
# 2. gpu_test_ops: exp bitwise against ir/exp_f32.h, the seed case with tests/fixtures (v22).
# 3. gpu_test_gemm -fno-wgmma-tma (v22: tf32-rne without k-overlap where consumers round B).
# 4. The JIT's default kernels' speed, cuBLAS in the process (against session 17's ratios:
#    tf32-rna 0.86x / 0.86x, tf32-rne 0.95x / 0.93x at 4096^3 / 8192^3).
# go2.sh: -frole-functions, compile rows, the bf16 edge loop.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v23/go1.sh
. bench/device/env.sh
S=$SECONDS
L=${OUT:-/tmp}
TILEC_GPU_QUICK=1 timeout 140 $B/bin/gpu_test_gemm > $L/gemm_default.log 2>&1
echo "default gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 $L/gemm_default.log; grep -B2 FAIL $L/gemm_default.log | head
timeout 90 $B/bin/gpu_test_ops > $L/ops.log 2>&1
echo "gpu_test_ops exit $? t=$((SECONDS-S))"; grep -E 'exp|seed|FAIL' $L/ops.log | head -12
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fno-wgmma-tma timeout 90 $B/bin/gpu_test_gemm > $L/gemm_notma.log 2>&1
echo "gpu_test_gemm -fno-wgmma-tma exit $? t=$((SECONDS-S))"; tail -1 $L/gemm_notma.log; grep -B2 FAIL $L/gemm_notma.log | head
echo "== JIT default"
timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
  --target-ms=40 --warmup-ms=100 --compile-runs=1 > $L/jit_default.log 2>&1
grep -E '^[0-9]+x.*(tilec|cublas tf32)' $L/jit_default.log; echo "t=$((SECONDS-S))"
