# session 6 run 2: full-tracking bf16 producer, k-overlap default for two-block consumers
. carry/dev.sh
S=$SECONDS
( timeout 240 $B/bin/gpu_test_gemm > $OUT/t_def.log 2>&1; echo "gpu_test_gemm default exit $?" ); tail -1 $OUT/t_def.log; grep -E "f16|bf16" $OUT/t_def.log | grep -c ok; grep -B3 FAIL $OUT/t_def.log | head -30
echo "t=$((SECONDS-S))"
bb() { timeout 150 $B/bin/bench_gemm --tilec=$B/bin/tilec --shapes=4096,8192 --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 "$@" 2>&1 | grep -E '^(shape|[0-9]+x)|rror'; }
echo "== bf16"; bb --modes=bf16 --cfg-bf16=128x256x64w8,128x128x64w8 > $OUT/b_bf16.log; cat $OUT/b_bf16.log
echo "t=$((SECONDS-S))"
echo "== bf16 odd"; bb --modes=bf16 --shapes=8191x8193x8190 --cfg-bf16=128x256x64w8 > $OUT/b_bf16_odd.log; cat $OUT/b_bf16_odd.log
echo "t=$((SECONDS-S))"
echo "== bf16 stages 6"; bb --modes=bf16 --cfg-bf16=128x128x64w8 --copt=--stages=6 --no-cublas > $OUT/b_bf16_s6.log; cat $OUT/b_bf16_s6.log
echo "t=$((SECONDS-S))"
echo "== tf32 default"; bb --modes=tf32-rna --cfg=128x256x32w8,128x128x32w4,64x256x32w8 > $OUT/b_tf32.log; cat $OUT/b_tf32.log
echo "t=$((SECONDS-S))"
echo "== tf32 no k-overlap"; bb --modes=tf32-rna --cfg=128x256x32w8,128x128x32w4,64x256x32w8 --copt=-fno-wgmma-k-overlap --no-cublas > $OUT/b_tf32_noko.log; cat $OUT/b_tf32_noko.log
echo "t=$((SECONDS-S))"
