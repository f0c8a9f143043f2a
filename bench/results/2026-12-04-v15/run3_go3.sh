# session 12 call 3 (f6558c5 + the K floor): the round-b path (-fwgmma-round-b: consumers take B as loaded, the
# rounder rounds A and B in shared memory) where pre-rounding does not apply, then the full benchmark with Triton
. carry/dev.sh
S=$SECONDS
SH=4096x4096x64,2048,1024,4096x4096x1024,4096
bb() { timeout 100 "$@" --archs=sm_90a --target-ms=30 --warmup-ms=100 --compile-runs=1 --shapes=$SH 2>&1 | grep -E '^[0-9]+x|rror'; }
{
echo "== TILEC_PREROUND=0, default"; TILEC_PREROUND=0 bb $B/bin/bench_gemm --modes=tf32-rna,tf32-rne --cfg=128x256x32w8,128x128x32w8
echo "== TILEC_PREROUND=0, -fwgmma-round-b"; TILEC_PREROUND=0 bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8 --copt=-fwgmma-round-b
} > $OUT/roundb.log 2>&1; cat $OUT/roundb.log
echo "t=$((SECONDS-S))"
ln -sf bin/tilec_static $B/tilec; mkdir -p $B/bench && ln -sf ../bin/bench_gemm $B/bench/bench_gemm
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8,128x128x32w8,128x256x32w8s2 --cfg-bf16=128x256x64w8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=5 --autotune"
timeout $((590 - SECONDS + S)) bash bench/run.sh $B $OUT/full > $OUT/run.log 2>&1; echo "run.sh exit $?"
grep -E '^[0-9]+x' $OUT/full/tilec_gemm.log | grep -E 'cublas|sm_90a' | awk '{print $1,$2,$3,$4,$5,$7,$8,$9}' | head -120
grep -A12 '^compile time' $OUT/full/tilec_gemm.log | head -14
echo "t=$((SECONDS-S))"
