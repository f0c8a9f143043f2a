# session 16, prepared, NOT RUN (the session's device time ran out: the machine failed its start, and
# then too little time was left for another): ieee's FMA consumers at 8 x 16 a thread with the
# experimental -fwgmma-ffma-wide (256x128 and 128x256, 8 warps) against 128x128 (8 x 8) and cuBLAS SGEMM,
# each row checked against fp64 (64 rows, C poisoned with NaN first); then as much of gpu_test_gemm as
# the time allows (its wide tiles include ieee at 128x256 and 256x128: edges, a batch, transposed B).
. bench/device/env.sh
S=$SECONDS
timeout 55 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192,8191x8193x8190,1000 \
  --cfg=128x128x32w8,256x128x32w8,128x256x32w8 --copt=-fwgmma-ffma-wide --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^[0-9]+x|rror' | tee $OUT/ieee.log
echo "t=$((SECONDS-S))"
TILEC_TEST_COPT=-fwgmma-ffma-wide timeout $((115 - SECONDS + S)) $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "t_gemm exit $? (124: out of time)"
echo "$(grep -c 'ok$' $OUT/t_gemm.log) ok, $(grep -c 'FAIL' $OUT/t_gemm.log) FAIL lines"; grep -B1 -A1 FAIL $OUT/t_gemm.log | head -12
grep -E "^sm_90a ieee +f32" $OUT/t_gemm.log | tail -12; tail -1 $OUT/t_gemm.log
xz -9 $OUT/t_gemm.log; echo "t=$((SECONDS-S))"
