# NOT RUN (session 19: no device machine was lent): the first call of a session with a GPU, before
# v21's notrun_go1.sh (about 3 minutes).
# 1. exp is now ir/exp_f32.h's sequence on both sides: gpu_test_ops compares it bitwise over its
#    special data, and its seed case now finds the fixtures (tests/fixtures; every earlier run
#    printed "not checked").
# 2. tf32-rne without TMA: no k-overlap where the consumers round B (ptxas had serialized every
#    wgmma of the stage, C7513): gpu_test_gemm with -fno-wgmma-tma (all precisions), then rne
#    against rna without TMA, cuBLAS in the process (predicted: rne now at least rna's speed; in
#    v13's run4 it was 267.0 / 260.9 against rna's 254.6 / 234.8 with every wgmma serialized).
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v22/notrun_go0.sh
. bench/device/env.sh
S=$SECONDS
timeout 120 $B/bin/gpu_test_ops > /tmp/ops.log 2>&1
echo "gpu_test_ops exit $?"; grep -E 'exp|seed|FAIL' /tmp/ops.log | head -20
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fno-wgmma-tma timeout 150 $B/bin/gpu_test_gemm > /tmp/nt.log 2>&1
echo "gpu_test_gemm -fno-wgmma-tma exit $?"; tail -1 /tmp/nt.log; grep -B2 FAIL /tmp/nt.log | head
timeout 90 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
  --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fno-wgmma-tma 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
echo "t=$((SECONDS-S))"
