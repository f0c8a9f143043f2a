# session 16, device call 5 (the last ~5 minutes of device time): ieee's FMA consumers at 8 x 16 a thread
# (256x128 and 128x256, 8 warps) against 128x128 (8 x 8) and cuBLAS SGEMM, each row checked against fp64
# (64 rows, C poisoned with NaN first); then the full gpu_test_gemm (its wide tiles include ieee at
# 128x256 and 256x128: edges in every dimension, a batch, transposed B).
. bench/device/env.sh
S=$SECONDS
timeout 70 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192,8191x8193x8190,1000 \
  --cfg=128x128x32w8,256x128x32w8,128x256x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^[0-9]+x|rror' | tee $OUT/ieee.log
echo "t=$((SECONDS-S))"
timeout $((175 - SECONDS + S)) $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "t_gemm exit $?"; tail -1 $OUT/t_gemm.log
grep -E "ieee +f32 .*(128x256|256x128)|FAIL" $OUT/t_gemm.log | head -12; grep -c "ok$" $OUT/t_gemm.log
xz -9 $OUT/t_gemm.log; echo "t=$((SECONDS-S))"
