# session 11 call 2 (58b49bd): the accuracy test (and with 2124162's library, whose 128x256 3xtf32 adds its
# products straight into the accumulators: it must fail there), the full gpu_test_gemm (staging all or none,
# the log notes), the other GPU tests, memcheck on the quick gpu_test_gemm
. carry/dev.sh
S=$SECONDS
mkdir -p carry/alt && tar xJf carry/alt.tar.xz -C carry
( timeout 90 $B/bin/gpu_test_accuracy > $OUT/t_accuracy.log 2>&1; echo "gpu_test_accuracy exit $?" ); cat $OUT/t_accuracy.log | grep -E "checks|within|half|PASS|FAIL|SKIP"
echo "t=$((SECONDS-S))"
( LD_LIBRARY_PATH=$PWD/carry/alt:$LD_LIBRARY_PATH timeout 90 $B/bin/gpu_test_accuracy > $OUT/t_accuracy_2124162.log 2>&1; echo "gpu_test_accuracy with 2124162's library exit $?" ); grep -E "within|half|PASS|FAIL" $OUT/t_accuracy_2124162.log
echo "t=$((SECONDS-S))"
( timeout 260 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -E "FAIL|staged view" $OUT/t_gemm.log | head -12
echo "t=$((SECONDS-S))"
for t in ops autotune faults; do ( timeout 60 $B/bin/gpu_test_$t > $OUT/t_$t.log 2>&1; echo "gpu_test_$t exit $?" ); tail -1 $OUT/t_$t.log; done
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 timeout $((570 - SECONDS + S)) compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm > $OUT/memcheck.log 2>&1; echo "memcheck quick exit $?" ); grep -E "ERROR SUMMARY|^PASS|FAIL" $OUT/memcheck.log | tail -3
echo "t=$((SECONDS-S))"
