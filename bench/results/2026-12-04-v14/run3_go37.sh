# session 11 call 3 (d647550): the accuracy test against 2124162's library without the disk cache (its
# 128x256 3xtf32 adds the products straight into the accumulators: it must fail there), then the full
# benchmark with Triton (bench/run.sh)
. carry/dev.sh
S=$SECONDS
mkdir -p carry/alt && tar xJf carry/alt.tar.xz -C carry
( TILEC_CACHE=0 LD_LIBRARY_PATH=$PWD/carry/alt:$LD_LIBRARY_PATH timeout 60 $B/bin/gpu_test_accuracy > $OUT/t_accuracy_2124162.log 2>&1; echo "gpu_test_accuracy with 2124162's library exit $?" ); grep -E "within|half|PASS|FAIL" $OUT/t_accuracy_2124162.log
echo "t=$((SECONDS-S))"
ln -sf bin/tilec_static $B/tilec  # the static build (README) for the whole-process compile time
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8,128x128x32w8 --cfg-bf16=128x256x64w8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=5 --autotune"
timeout $((590 - SECONDS + S)) bash bench/run.sh $B $OUT/full > $OUT/run.log 2>&1; echo "run.sh exit $?"
grep -E '^[0-9]+x' $OUT/full/tilec_gemm.log | awk '{print $1,$2,$3,$4,$5,$7,$8,$9}' | head -170
grep -A12 '^compile time' $OUT/full/tilec_gemm.log | head -14
tail -25 $OUT/full/triton_gemm.log
echo "t=$((SECONDS-S))"
