# session 9 call 4: quick test on the final defaults (pair stores, k-overlap), then the full benchmark with Triton
. carry/dev.sh
S=$SECONDS
( TILEC_GPU_QUICK=1 timeout 100 $B/bin/gpu_test_gemm > $OUT/t_quick.log 2>&1; echo "gpu_test_gemm quick exit $?" ); tail -1 $OUT/t_quick.log; grep -B3 FAIL $OUT/t_quick.log | head -20
echo "t=$((SECONDS-S))"
ln -sf bin/tilec_static $B/tilec  # the static build (README) for the whole-process compile time
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8,128x128x32w8 --cfg-bf16=128x256x64w8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=5 --autotune"
timeout $((585 - SECONDS)) bash bench/run.sh $B $OUT/full > $OUT/run.log 2>&1; echo "run.sh exit $?"
grep -E '^[0-9]+x' $OUT/full/tilec_gemm.log | awk '{print $1,$2,$3,$4,$5,$7,$8,$9}' | head -170
grep -A12 '^compile time' $OUT/full/tilec_gemm.log | head -14
tail -25 $OUT/full/triton_gemm.log
echo "t=$((SECONDS-S))"
