# Session 32, second call (carry/r1.tar.xz as go1): bf16 with a K-major B at the three large shapes
# against row-major B, two interleaved rounds, cuBLAS bf16 (TN / NN) in each process; then
# gpu_test_gemm's quick set compiled (its f16/bf16 K-major cases).
B=/tmp/r1; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/r1.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
for r in 1 2; do
  for v in km rm; do
    t "r$r $v"; c=""; [ $v = km ] && c=--b-kmajor
    timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=bf16 --cfg-bf16=128x256x64w8g8 --target-ms=30 --warmup-ms=20 \
      --compile-runs=1 --shapes=4096,8192,8191x8193x8190 $c 2>&1 | tee $OUT/bench_r${r}_$v.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
  done
done
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5; grep -i -E "k-?major" $OUT/gemm.log | grep -E "f16|bf16" | head -20
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
