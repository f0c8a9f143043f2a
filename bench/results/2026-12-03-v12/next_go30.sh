# session 9 call 6: synccheck on the f16/bf16 pipeline's element path alone (bench_gemm, bf16
# 300x520x333: rows not 16-byte aligned), as built and with two diagnostic variants (diag_ss.patch)
(cd carry2 && tar xJf d.tar.xz)
D=$PWD/carry2/d
export LD_LIBRARY_PATH=$D:/usr/local/cuda/lib64 CUDA_CACHE_DISABLE=1
for v in 0 1 2; do
  TILEC_DIAG_SS=$v timeout 20 compute-sanitizer --tool synccheck --print-limit 2 $D/bench_gemm --modes=bf16 --archs=sm_90a \
    --shapes=300x520x333 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 \
    --cfg-bf16=128x256x64w8 > $OUT/s$v.log 2>&1; echo "v$v exit $?"; grep -E "ERROR SUMMARY|Barrier error|at gemm|^300x" $OUT/s$v.log | head -4
done
