# session 8, call 1: -fwgmma-tma validated (full test, memcheck quick); 256x128 and grouped order timed
. carry/dev.sh
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
timeout 120 $B/bin/bench_gemm --copt=-fwgmma-tma --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8,128x256x32w8g8,256x128x32w8,256x128x32w8g8,128x256x32w8g16 2>&1 | grep -E '^(shape|[0-9]+x)|rror|FAIL' > $OUT/b_grp.log; cat $OUT/b_grp.log
echo "t=$((SECONDS-S))"
( TILEC_TEST_COPT=-fwgmma-tma timeout 230 $B/bin/gpu_test_gemm > $OUT/t_full_tma.log 2>&1; echo "gpu_test_gemm full -fwgmma-tma exit $?" ); tail -3 $OUT/t_full_tma.log; grep -B2 -A2 FAIL $OUT/t_full_tma.log | head -12
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-tma timeout $((570-SECONDS+S)) compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm > $OUT/memcheck_tma.log 2>&1; echo "memcheck quick -fwgmma-tma exit $?" ); grep -E "ERROR SUMMARY|PASS|FAIL" $OUT/memcheck_tma.log | tail -3; tail -2 $OUT/memcheck_tma.log
echo "t=$((SECONDS-S))"
