# session 11 call 1: quick gpu_test_gemm on 2124162 (3xtf32 straight into the accumulators where the
# per-stage sums do not fit; k-overlap off at BM 256), the same with -fno-wgmma-3x-step-sums, then A/B timings
. carry/dev.sh
S=$SECONDS
( TILEC_GPU_QUICK=1 timeout 170 $B/bin/gpu_test_gemm > $OUT/t_quick.log 2>&1; echo "gpu_test_gemm quick exit $?" ); tail -1 $OUT/t_quick.log; grep -B2 FAIL $OUT/t_quick.log | head -20
grep -E "3xtf32" $OUT/t_quick.log | grep -E "128x256|256x128|64x256|128x128" | head -8
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fno-wgmma-3x-step-sums timeout 150 $B/bin/gpu_test_gemm > $OUT/t_quick_nosums.log 2>&1; echo "gpu_test_gemm quick -fno-wgmma-3x-step-sums exit $?" ); tail -1 $OUT/t_quick_nosums.log; grep -B2 FAIL $OUT/t_quick_nosums.log | head -20
echo "t=$((SECONDS-S))"
bb() { timeout 120 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
{
echo "== 3xtf32: 128x128 (step sums), 128x256 (straight), with cuBLAS"
bb --modes=3xtf32 --shapes=4096,8192 --cfg=128x128x32w8,128x256x32w8
echo "== 3xtf32 128x128 -fno-wgmma-3x-step-sums (straight, k-overlap)"
bb --no-cublas --modes=3xtf32 --shapes=4096,8192 --cfg=128x128x32w8 --copt=-fno-wgmma-3x-step-sums
echo "== 3xtf32 128x256 -fno-wgmma-k-overlap (no effect expected: 2 stages)"
echo "== tf32 256x128 (no k-overlap now) against 128x256"
bb --no-cublas --modes=tf32-rna,tf32-rne --shapes=4096,8192 --cfg=256x128x32w8,128x256x32w8
echo "== small K: two stages"
bb --modes=tf32-rna,tf32-rne --shapes=4096x4096x64 --cfg=128x256x32w8,128x256x32w8s2,128x128x32w8,128x128x32w8s2
} > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
