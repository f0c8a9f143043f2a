# session 6 run 1: the bf16 descriptor probe, the f16/bf16 pipeline's tests, k-overlap's trunc fix, bf16 speed
. carry/dev.sh
S=$SECONDS
echo "== probe"; timeout 150 ./carry/probe > $OUT/probe.log 2>&1; echo "probe exit $?"; grep -E "FAIL|summary" $OUT/probe.log | head -30
echo "t=$((SECONDS-S))"
( timeout 240 $B/bin/gpu_test_gemm > $OUT/t_def.log 2>&1; echo "gpu_test_gemm default exit $?" ); tail -2 $OUT/t_def.log; grep -E "f16|bf16" $OUT/t_def.log | grep -c ok; grep -B3 FAIL $OUT/t_def.log | head -30
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 TILEC_TEST_COPT="-fwgmma-k-overlap" timeout 150 $B/bin/gpu_test_gemm > $OUT/t_ko.log 2>&1; echo "gpu_test_gemm quick k-overlap exit $?" ); tail -1 $OUT/t_ko.log; grep FAIL $OUT/t_ko.log | head -5
echo "t=$((SECONDS-S))"
echo "== bf16"; timeout 120 $B/bin/bench_gemm --tilec=$B/bin/tilec --shapes=4096,8192 --modes=bf16 --archs=sm_90a --cfg-bf16=128x256x64w8,128x128x64w8,64x256x64w4 --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^(shape|[0-9]+x)|rror' > $OUT/b_bf16.log; cat $OUT/b_bf16.log
echo "t=$((SECONDS-S))"
