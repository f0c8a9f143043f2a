# session 13 call 1, part 2: timing, 2-D grid vs g8 vs g8 persistent
. carry/dev.sh
S=$SECONDS
bb() { timeout 150 "$@" --archs=sm_90a --target-ms=30 --warmup-ms=50 --compile-runs=1 2>&1 | grep -E '^[0-9]+x|rror'; }
bb $B/bin/bench_gemm --shapes=4096,8192,8191x8193x8190,4096x4096x64 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8,128x256x32w8g8p > $OUT/bench_p.log; cat $OUT/bench_p.log
echo "  t=$((SECONDS-S))"
bb $B/bin/bench_gemm --no-cublas --shapes=4096,8192,8191x8193x8190,4096x4096x64 --modes=bf16,3xtf32 --cfg=128x128x32w8g8,128x128x32w8g8p --cfg-bf16=128x256x64w8g8,128x256x64w8g8p > $OUT/bench_p2.log; cat $OUT/bench_p2.log
echo "  t=$((SECONDS-S))"
