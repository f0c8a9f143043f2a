# Session 31, fifth device call (carry/q3.tar.xz): f16/bf16 with a K-major B (lower_wgmma_ss.c:
# B^T's rows copied as A's, no transpose bit). First the speed: bf16 128x256 g8 with B K-major
# against row-major B and against the old element copies (-fno-wgmma-kmajor-b), cuBLAS bf16 in each
# process (TN / NN); then gpu_test_gemm's quick set (its f16/bf16 K-major cases) compiled.
B=/tmp/q3; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/q3.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
for v in kmajor rowmajor kmajor-old; do
  t "$v"; c=""; [ $v != rowmajor ] && c=--b-kmajor; [ $v = kmajor-old ] && c="$c --copt=-fno-wgmma-kmajor-b"
  timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=bf16 --cfg-bf16=128x256x64w8g8 --target-ms=30 --warmup-ms=20 \
    --compile-runs=1 --shapes=4096,8192,8191x8193x8190 $c 2>&1 | tee $OUT/bench_bf16_$v.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
done
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
