# session 13 call 4: the full benchmark with Triton; tiles: g8 (persistent, the default), g8n (-fno-persistent), 128x128
. carry/dev.sh
S=$SECONDS
ln -sf bin/tilec_static $B/tilec; mkdir -p $B/bench && ln -sf ../bin/bench_gemm $B/bench/bench_gemm
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x256x32w8g8n,128x128x32w8 --cfg-bf16=128x256x64w8,128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=3 --autotune"
timeout $((560 - SECONDS + S)) bash bench/run.sh $B $OUT/full > $OUT/run.log 2>&1; echo "run.sh exit $?"
grep -E '^[0-9]+x' $OUT/full/tilec_gemm.log | grep -E 'cublas|sm_90a' | awk '{print $1,$2,$3,$4,$5,$7,$8,$9}' | head -90
grep -A12 '^compile time' $OUT/full/tilec_gemm.log | head -14
echo "t=$((SECONDS-S))"
