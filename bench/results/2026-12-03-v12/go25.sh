# session 9, first device call: session 8's untested pieces, then tf32-rna A/B in one process
. carry/dev.sh
S=$SECONDS
( timeout 200 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm (default) exit $?" ); tail -1 $OUT/t_gemm.log; grep -E "grouped|FAIL" $OUT/t_gemm.log | head
echo "t=$((SECONDS-S))"
bb() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 --shapes=4096,8192 "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
echo "== default"; bb --modes=tf32-rne,tf32-trunc,tf32-rna --cfg=128x256x32w8
echo "== -fwgmma-tma-direct"; bb --no-cublas --modes=tf32-rne,tf32-trunc --cfg=128x256x32w8 --copt=-fwgmma-tma-direct
echo "== rna no tma"; bb --no-cublas --modes=tf32-rna --cfg=128x256x32w8 --copt=-fno-wgmma-tma
echo "== rna 128x128 tma / no tma"; bb --no-cublas --modes=tf32-rna --cfg=128x128x32w8; bb --no-cublas --modes=tf32-rna --cfg=128x128x32w8 --copt=-fno-wgmma-tma
echo "t=$((SECONDS-S))"
( TILEC_TEST_COPT=-fwgmma-tma-direct timeout 200 $B/bin/gpu_test_gemm > $OUT/t_direct.log 2>&1; echo "gpu_test_gemm -fwgmma-tma-direct exit $?" ); tail -1 $OUT/t_direct.log
echo "t=$((SECONDS-S))"
