# session 12 call 4 (6b5a6e0): gpu_test_preround built with a copy that does not round (brk1) and with one whose
# rounding turns low-payload NaNs into Inf (brk2): both must FAIL; then the tests on the new build, synccheck and
# memcheck on gpu_test_preround, and a short timing of the default rule
. carry/dev.sh
S=$SECONDS
for v in brk1 brk2; do ( LD_LIBRARY_PATH=$B/$v timeout 120 $B/$v/gpu_test_preround > $OUT/t_preround_$v.log 2>&1; echo "gpu_test_preround $v exit $?" ); grep -E 'FAIL|PASS|first diff' $OUT/t_preround_$v.log | head -6; echo "FAIL lines: $(grep -c FAIL $OUT/t_preround_$v.log)"; done
( timeout 120 $B/bin/gpu_test_preround > $OUT/t_preround.log 2>&1; echo "gpu_test_preround exit $?" ); tail -1 $OUT/t_preround.log; grep -c ': ok' $OUT/t_preround.log
( timeout 300 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -B3 FAIL $OUT/t_gemm.log | head; grep -c 'notes a staged view: ok' $OUT/t_gemm.log
for t in ops autotune faults accuracy; do ( timeout 120 $B/bin/gpu_test_$t > $OUT/t_$t.log 2>&1; echo "gpu_test_$t exit $?" ); tail -1 $OUT/t_$t.log; done
echo "t=$((SECONDS-S))"
( timeout 200 compute-sanitizer --tool synccheck $B/bin/gpu_test_preround > $OUT/synccheck.log 2>&1; echo "synccheck preround exit $?" ); tail -2 $OUT/synccheck.log
( timeout 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_preround > $OUT/memcheck.log 2>&1; echo "memcheck preround exit $?" ); tail -2 $OUT/memcheck.log
echo "t=$((SECONDS-S))"
timeout 90 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=100 --compile-runs=1 --shapes=8192,4096,8191x8193x8190 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8 > $OUT/bench.log 2>&1; grep -E '^[0-9]+x' $OUT/bench.log
echo "t=$((SECONDS-S))"
