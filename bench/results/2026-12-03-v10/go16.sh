# session 7 run 4: -fwgmma-tma (now with 128-byte swizzled B panels) after the 16-byte start fix: quick gpu_test_gemm
. carry/dev.sh
S=$SECONDS
( TILEC_GPU_QUICK=1 TILEC_TEST_COPT="-fwgmma-tma" timeout 100 $B/bin/gpu_test_gemm > $OUT/t_quick_tma.log 2>&1; echo "gpu_test_gemm quick -fwgmma-tma exit $?" ); tail -1 $OUT/t_quick_tma.log; grep -B2 -A2 FAIL $OUT/t_quick_tma.log | head -12
grep -E "from k 4|f16|bf16" $OUT/t_quick_tma.log | grep -c ok
echo "t=$((SECONDS-S))"
