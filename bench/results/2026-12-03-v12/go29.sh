# session 9 call 5: the final build's GPU tests (full gpu_test_gemm on the final defaults, the
# other GPU tests), then compute-sanitizer memcheck, racecheck and synccheck on the quick test
. carry/dev.sh
S=$SECONDS
( timeout 200 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -E "FAIL" $OUT/t_gemm.log | head
echo "t=$((SECONDS-S))"
for t in ops autotune faults round_all; do ( TILEC_SOURCE_DIR=$PWD timeout 90 $B/bin/gpu_test_$t > $OUT/t_$t.log 2>&1; echo "gpu_test_$t exit $?" ); tail -1 $OUT/t_$t.log; done
echo "t=$((SECONDS-S))"
for tt in memcheck:100 racecheck:90 synccheck:60; do tool=${tt%:*}
  ( TILEC_GPU_QUICK=1 timeout ${tt#*:} compute-sanitizer --tool $tool $B/bin/gpu_test_gemm > $OUT/$tool.log 2>&1; echo "$tool quick exit $?" ); grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^PASS|FAIL" $OUT/$tool.log | tail -3
  echo "t=$((SECONDS-S))"
done
