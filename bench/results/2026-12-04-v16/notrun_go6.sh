# session 13 call 6: tf32-rna persistent with -fwgmma-round-b (one consumer loop: the rounder rounds A and B in
# shared memory) against the default (two consumer loops), and their compile times
. carry/dev.sh
S=$SECONDS
bb() { timeout 120 $B/bin/bench_gemm --no-cublas --archs=sm_90a --target-ms=30 --warmup-ms=50 --compile-runs=2 --shapes=8192,4096,4096x4096x64,2048 --modes=tf32-rna --cfg=128x256x32w8g8 "$@" 2>&1 | grep -E '^[0-9]+x|rror|^jit-cold|^compile|^process'; }
bb --copt=-fwgmma-round-b > $OUT/rb.log; cat $OUT/rb.log
bb > $OUT/def.log; cat $OUT/def.log
echo "t=$((SECONDS-S))"
