# session 10 call 1: synccheck on the f16/bf16 element path (old .inc vs new .noinc build), cuMemcpy2D probe,
# the full gpu_test_gemm with staged cases, odd shapes staged vs not, small K with s2, 256x128 k-overlap
. carry/dev.sh
S=$SECONDS
(cd carry2 && tar xJf d.tar.xz)
D=$PWD/carry2/d
sc() { timeout 40 compute-sanitizer --tool synccheck --print-limit 2 "$@" --modes=bf16 --archs=sm_90a \
    --shapes=300x520x333 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --cfg-bf16=128x256x64w8; }
TILEC_DIAG_SS=0 LD_LIBRARY_PATH=$D:/usr/local/cuda/lib64 sc $D/bench_gemm > $OUT/s_old.log 2>&1; echo "old exit $?"; grep -E "ERROR SUMMARY|Barrier error|^300x" $OUT/s_old.log | head -3
sc $B/bin/bench_gemm > $OUT/s_new.log 2>&1; echo "new exit $?"; grep -E "ERROR SUMMARY|Barrier error|^300x" $OUT/s_new.log | head -3
echo "t=$((SECONDS-S))"
timeout 60 carry2/memcpy2d 2>&1 | tee $OUT/memcpy2d.log
echo "t=$((SECONDS-S))"
( TILEC_SOURCE_DIR=$PWD timeout 220 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -E "FAIL|staged" $OUT/t_gemm.log | head -12
echo "t=$((SECONDS-S))"
bb() { timeout 150 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 "$@" 2>&1 | grep -E '^[0-9]+x|rror|autotune'; }
{
echo "== odd and aligned, staged (default)"; bb --modes=tf32-rna,tf32-rne,bf16 --shapes=8191x8193x8190,8192,4095x4097x63 --cfg=128x256x32w8
echo "== odd, TILEC_STAGE=0"; TILEC_STAGE=0 bb --modes=tf32-rna,tf32-rne,bf16 --shapes=8191x8193x8190,4095x4097x63 --cfg=128x256x32w8 --no-cublas
} > $OUT/odd.log 2>&1; cat $OUT/odd.log
echo "t=$((SECONDS-S))"
{
echo "== small K autotune with s2"; bb --modes=tf32-rna,tf32-rne --shapes=4096x4096x64 --cfg=128x256x32w8,128x256x32w8s2 --autotune
echo "== 256x128 k-overlap (default) / off"; bb --modes=tf32-rna,tf32-rne --shapes=4096,8192 --cfg=256x128x32w8,128x256x32w8 --no-cublas
bb --modes=tf32-rna,tf32-rne --shapes=4096,8192 --cfg=256x128x32w8 --no-cublas --copt=-fno-wgmma-k-overlap
} > $OUT/bench.log 2>&1; cat $OUT/bench.log
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 TILEC_SOURCE_DIR=$PWD timeout 150 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm > $OUT/synccheck.log 2>&1; echo "synccheck quick exit $?" ); grep -E "ERROR SUMMARY|^PASS|FAIL|Barrier" $OUT/synccheck.log | tail -3
echo "t=$((SECONDS-S))"
