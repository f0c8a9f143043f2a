# Session 23 (NOT RUN: too little device time was left to start a machine), the final build on the GPU: gpu_test_gemm's quick set (with ieee's narrow 128x16
# case, which takes no maps since 8534098) and ieee / 3xtf32 at 4096³ against cuBLAS SGEMM once
# (no default kernel changed since go4.sh). carry ["carry/f.tar.xz"].
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $R/gemm_final.log 2>&1
echo "gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_final.log; grep -c ': ok$' $R/gemm_final.log
timeout 40 $B/bin/bench_gemm --archs=sm_90a --modes=ieee,3xtf32 --shapes=4096 --cfg=128x128x32w8 --target-ms=30 \
  --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
