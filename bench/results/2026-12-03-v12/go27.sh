# session 9 call 3: pair stores (HEAD) validated; A/B old build vs new, and k-overlap / direct as defaults
. carry/dev.sh
S=$SECONDS
mkdir -p carry/base && tar xJf carry/base.tar.xz -C carry/base
O=$PWD/carry/base/b/bin
( timeout 200 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm (default) exit $?" ); tail -1 $OUT/t_gemm.log; grep -E "FAIL" $OUT/t_gemm.log | head
echo "t=$((SECONDS-S))"
( TILEC_TEST_COPT="-fwgmma-k-overlap -fwgmma-tma-direct" timeout 200 $B/bin/gpu_test_gemm > $OUT/t_kov_direct.log 2>&1; echo "gpu_test_gemm k-overlap+direct exit $?" ); tail -1 $OUT/t_kov_direct.log; grep -E "FAIL" $OUT/t_kov_direct.log | head
echo "t=$((SECONDS-S))"
SH=4096,8192,4096x4096x64,1024
bb() { local bin=$1; shift; timeout 90 env LD_LIBRARY_PATH=$(dirname $bin):$LD_LIBRARY_PATH $bin --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 --shapes=$SH "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
{
echo "== new default (cuBLAS)"; bb $B/bin/bench_gemm --modes=tf32-rna,tf32-rne,tf32-trunc --cfg=128x256x32w8
echo "== old default"; bb $O/bench_gemm --no-cublas --modes=tf32-rna,tf32-rne,tf32-trunc --cfg=128x256x32w8
echo "== new k-overlap"; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna,tf32-rne,tf32-trunc --cfg=128x256x32w8 --copt=-fwgmma-k-overlap
echo "== new direct"; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rne,tf32-trunc --cfg=128x256x32w8 --copt=-fwgmma-tma-direct
echo "== new k-overlap+direct"; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rne,tf32-trunc --cfg=128x256x32w8 --copt=-fwgmma-tma-direct --copt=-fwgmma-k-overlap
echo "== bf16 new (cuBLAS) / old"; bb $B/bin/bench_gemm --modes=bf16 --shapes=4096,8192; bb $O/bench_gemm --no-cublas --modes=bf16 --shapes=4096,8192
echo "== 128x128 rna new k-overlap / new / old"; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x128x32w8 --copt=-fwgmma-k-overlap; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x128x32w8; bb $O/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x128x32w8
} > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
{
echo "== small K: stages 2 / default, 128x128 and 128x256 (new)"
for c in 128x128x32w8 128x256x32w8; do bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna,tf32-rne --shapes=4096x4096x64 --cfg=$c --copt=--stages=2; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna,tf32-rne --shapes=4096x4096x64 --cfg=$c; done
} > $OUT/smallk.log 2>&1; cat $OUT/smallk.log
echo "t=$((SECONDS-S))"
