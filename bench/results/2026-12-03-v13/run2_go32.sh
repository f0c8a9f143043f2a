# session 10 call 2: a PTX copy kernel vs cuMemcpy2DAsync for staging; where the odd shape's kernel time goes
. carry/dev.sh
S=$SECONDS
timeout 90 carry2/stagecopy carry2/stage.ptx 2>&1 | tee $OUT/stagecopy.log
echo "t=$((SECONDS-S))"
bb() { timeout 200 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 --no-cublas "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
{
echo "== isolating: M odd / A staged / B staged + C odd ldc / all / aligned"
bb --modes=tf32-rna,tf32-rne,bf16 --shapes=8191x8192x8192,8192x8192x8190,8192x8193x8192,8191x8193x8190,8192 --cfg=128x256x32w8
echo "== same, TILEC_STAGE=0 for the staged ones"
TILEC_STAGE=0 bb --modes=tf32-rne,bf16 --shapes=8192x8192x8190,8192x8193x8192 --cfg=128x256x32w8
} > $OUT/iso.log 2>&1; cat $OUT/iso.log
echo "t=$((SECONDS-S))"
