# session 7 run 1: TMA tf32 conversion probe; gpu_test_gemm on HEAD; two-producer f16/bf16 option
. carry/dev.sh
S=$SECONDS
( cd carry/tma && LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH OMP_NUM_THREADS=16 timeout 200 ./probe > $OUT/probe.log 2>&1; echo "probe exit $?" ); cat $OUT/probe.log
echo "t=$((SECONDS-S))"
( timeout 120 $B/bin/gpu_test_gemm > $OUT/t_full.log 2>&1; echo "gpu_test_gemm full exit $?" ); tail -1 $OUT/t_full.log; grep -B3 FAIL $OUT/t_full.log | head -20
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-half-two-producers timeout 60 $B/bin/gpu_test_gemm > $OUT/t_2p.log 2>&1; echo "gpu_test_gemm quick two-producers exit $?" ); tail -1 $OUT/t_2p.log; grep -B3 FAIL $OUT/t_2p.log | head -20
echo "t=$((SECONDS-S))"
for c in "" "--copt=-fwgmma-half-two-producers"; do
timeout 60 $B/bin/bench_gemm $c --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 --modes=bf16 --shapes=4096,8192,8191x8193x8190 --cfg-bf16=128x128x64w8 2>&1 | grep -E '^(shape|[0-9]+x)|rror'
done > $OUT/b_bf16.log; cat $OUT/b_bf16.log
echo "t=$((SECONDS-S))"
