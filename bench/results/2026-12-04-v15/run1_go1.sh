# session 12 call 1: pre-rounding (TILEC_PREROUND) on the working tree: its GPU test, the quick gemm test,
# then tf32-rna timed with the views pre-rounded (=1), rounded in the kernel (=0), the default rule, against
# the build before (old/) and tf32-rne, in one process each
. carry/dev.sh
S=$SECONDS
( timeout 120 $B/bin/gpu_test_preround > $OUT/t_preround.log 2>&1; echo "gpu_test_preround exit $?" ); grep -E 'FAIL|PASS|first diff' $OUT/t_preround.log | head -30
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 timeout 200 $B/bin/gpu_test_gemm > $OUT/t_quick.log 2>&1; echo "gpu_test_gemm quick exit $?" ); tail -1 $OUT/t_quick.log; grep -B3 FAIL $OUT/t_quick.log | head -20
echo "t=$((SECONDS-S))"
SH=4096,8192,8191x8193x8190,4096x4096x64,2048
bb() { timeout 150 "$@" --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 --shapes=$SH 2>&1 | grep -E '^[0-9]+x|rror'; }
{
echo "== new, default rule (rna, rne)"; bb $B/bin/bench_gemm --modes=tf32-rna,tf32-rne --cfg=128x256x32w8,128x128x32w8
echo "== new, TILEC_PREROUND=1"; TILEC_PREROUND=1 bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8
echo "== new, TILEC_PREROUND=0"; TILEC_PREROUND=0 bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8
echo "== old (d24f5a3)"; LD_LIBRARY_PATH=$B/old bb $B/old/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8
} > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
