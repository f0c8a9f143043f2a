# session 8, call 2: ncu of tf32-rne TMA 128x256 and of cuBLAS TF32 at 4096^3; option A/B with TMA
. carry/dev.sh
S=$SECONDS
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
BG="$B/bin/bench_gemm --shapes=4096 --modes=tf32-rne --archs=sm_90a --cfg=128x256x32w8 --copt=-fwgmma-tma --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1"
timeout 100 $ncu --clock-control none -c 12 --metrics gpu__time_duration.sum $BG > $OUT/ncu_names.log 2>&1; echo "names exit $?"; grep -E '^  [a-zA-Z_].*\(' $OUT/ncu_names.log | sort | uniq -c | head
echo "t=$((SECONDS-S))"
timeout 150 $ncu --clock-control none -k regex:'^gemm$' -c 1 --set full --import-source no -o $OUT/p_rne $BG --no-cublas > $OUT/ncu_rne.log 2>&1; echo "ncu rne exit $?"
$ncu --import $OUT/p_rne.ncu-rep --page details > $OUT/rne_details.txt 2>&1
$ncu --import $OUT/p_rne.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/rne_sass.csv.gz
echo "t=$((SECONDS-S))"
timeout 150 $ncu --clock-control none -k regex:'tf32' -c 1 --set full -o $OUT/p_cub $BG > $OUT/ncu_cub.log 2>&1; echo "ncu cublas exit $?"
$ncu --import $OUT/p_cub.ncu-rep --page details > $OUT/cub_details.txt 2>&1
rm -f $OUT/*.ncu-rep
grep -E 'Duration|Throughput|Bank|Wavefronts|Registers|Shared Memory Configuration|Block Size|Achieved Occ' $OUT/rne_details.txt | head -30
echo ---; grep -E 'Duration|Throughput|Bank|Wavefronts|Registers|Block Size|Dynamic Shared|Grid Size' $OUT/cub_details.txt | head -30
echo "t=$((SECONDS-S))"
bb() { timeout 60 $B/bin/bench_gemm --shapes=4096,8192 --modes=tf32-rne --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 --cfg=128x256x32w8 --copt=-fwgmma-tma "$@" 2>&1 | grep -E '^[0-9]+x.*tilec'; }
for o in "" "--copt=-fwgmma-k-overlap" "--copt=-fno-wgmma-split-stage" "--copt=--stages=3" "--copt=-fno-wgmma-roles"; do echo "== $o"; bb --no-cublas $o; done > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
