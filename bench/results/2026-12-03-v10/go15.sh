# session 7 run 3: -fwgmma-tma (8-column panels) and -fwgmma-tma-b128 (128-byte swizzled panels):
# quick gpu_test_gemm with each, then timing of the three against cuBLAS in one process each
. carry/dev.sh
S=$SECONDS
for c in "-fwgmma-tma" "-fwgmma-tma -fwgmma-tma-b128"; do
( TILEC_GPU_QUICK=1 TILEC_TEST_COPT="$c" timeout 75 $B/bin/gpu_test_gemm > "$OUT/t_quick_${c// /_}.log" 2>&1; echo "gpu_test_gemm quick '$c' exit $?" ); tail -1 "$OUT/t_quick_${c// /_}.log"; grep -B2 -A2 FAIL "$OUT/t_quick_${c// /_}.log" | head -12
echo "t=$((SECONDS-S))"
done
for c in "--copt=-fwgmma-tma" "--copt=-fwgmma-tma --copt=-fwgmma-tma-b128" ""; do
echo "== $c"
timeout 70 $B/bin/bench_gemm $c --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 --modes=tf32-rne,tf32-rna,bf16 --shapes=4096,8192 --cfg=128x256x32w8,128x128x32w8 --cfg-bf16=128x256x64w8 2>&1 | grep -E '^(shape|[0-9]+x)|rror|FAIL'
echo "t=$((SECONDS-S))"
done > $OUT/b_tma.log 2>&1; cat $OUT/b_tma.log
