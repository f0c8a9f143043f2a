# session 9 call 2: where tf32-rna's time goes (128x256, TMA): ncu + variants without A's / B's rounding
. carry/dev.sh
S=$SECONDS
(cd carry && tar xJf diag.tar.xz)
D=$PWD/carry/diag
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
BG="$B/bin/bench_gemm --shapes=4096 --modes=tf32-rna --archs=sm_90a --cfg=128x256x32w8 --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --no-cublas"
timeout 150 $ncu --clock-control none -k regex:'^gemm$' -c 1 --set full --import-source no -o $OUT/p_rna $BG > $OUT/ncu_rna.log 2>&1; echo "ncu rna exit $?"
$ncu --import $OUT/p_rna.ncu-rep --page details > $OUT/rna_details.txt 2>&1
$ncu --import $OUT/p_rna.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/rna_sass.csv.gz
rm -f $OUT/*.ncu-rep
grep -E 'Duration|Throughput|Bank|Wavefronts|Registers|Issue Slots|Eligible|Warp Cycles' $OUT/rna_details.txt | head -30
echo "t=$((SECONDS-S))"
bb() { timeout 60 env LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH $D/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 --shapes=4096,8192 --no-cublas --modes=tf32-rna --cfg=128x256x32w8 "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
for v in "" TILEC_DIAG_NOA=1 TILEC_DIAG_NOB=1 "TILEC_DIAG_NOA=1 TILEC_DIAG_NOB=1" TILEC_DIAG_NOMASK=1; do echo "== $v"; env $v bash -c "$(declare -f bb); D=$D; bb"; done
echo "== rna round-b"; bb --copt=-fwgmma-round-b
echo "== rna k-overlap"; bb --copt=-fwgmma-k-overlap
echo "t=$((SECONDS-S))"
