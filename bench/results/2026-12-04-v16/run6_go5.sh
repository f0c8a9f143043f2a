# session 13 call 5: persistent (g8) vs not (g8n) for tf32-rne / rna, separate processes, alternating order
. carry/dev.sh
S=$SECONDS
bb() { timeout 100 $B/bin/bench_gemm --no-cublas --archs=sm_90a --target-ms=40 --warmup-ms=100 --compile-runs=1 --shapes=8192,4096 --modes=tf32-rne,tf32-rna "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
for r in 1 2; do bb --cfg=128x256x32w8g8n; bb --cfg=128x256x32w8g8; done > $OUT/ab.log; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
