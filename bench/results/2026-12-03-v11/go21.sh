# session 8, call 4: TMA on by default with nperm + direct: A/B timing, every GPU test, memcheck, synccheck
. carry/dev.sh
S=$SECONDS
bb() { timeout 60 $B/bin/bench_gemm --shapes=4096,8192 --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 "$@" 2>&1 | grep -E '^[0-9]+x'; }
{
echo "== default (TMA, direct, nperm) with cuBLAS"; bb --modes=tf32-rne,tf32-rna,tf32-trunc --cfg=128x256x32w8,256x128x32w8,128x256x32w8g8
echo "== -fno-wgmma-tma-direct"; bb --no-cublas --modes=tf32-rne,tf32-trunc --cfg=128x256x32w8,256x128x32w8 --copt=-fno-wgmma-tma-direct
echo "== -fwgmma-k-overlap"; bb --no-cublas --modes=tf32-rne,tf32-rna --cfg=128x256x32w8 --copt=-fwgmma-k-overlap
echo "== -fno-wgmma-tma"; bb --no-cublas --modes=tf32-rne,tf32-rna --cfg=128x256x32w8 --copt=-fno-wgmma-tma
echo "== -fwgmma-round-b"; bb --no-cublas --modes=tf32-rna --cfg=128x256x32w8 --copt=-fwgmma-round-b
} > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
( timeout 200 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -B2 -A2 FAIL $OUT/t_gemm.log | head -12
echo "t=$((SECONDS-S))"
for t in ops autotune faults round_all; do ( TILEC_SOURCE_DIR=$PWD timeout 90 $B/bin/gpu_test_$t > $OUT/t_$t.log 2>&1; echo "gpu_test_$t exit $?" ); tail -1 $OUT/t_$t.log; done
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 timeout 100 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm > $OUT/memcheck.log 2>&1; echo "memcheck quick exit $?" ); grep -E "ERROR SUMMARY|^PASS|FAIL" $OUT/memcheck.log | tail -2
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 timeout 120 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm > $OUT/synccheck.log 2>&1; echo "synccheck quick exit $?" ); grep -E "ERROR SUMMARY|^PASS|FAIL" $OUT/synccheck.log | tail -2; head -c 1500 $OUT/synccheck.log | grep -v "^sm_" | head -20
echo "t=$((SECONDS-S))"
