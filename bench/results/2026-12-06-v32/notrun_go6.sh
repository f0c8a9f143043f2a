# NOT RUN (no device time left). Session 29, sixth device call (c37539d, carry/p5.tar.xz: the stores by rows with batched inline
# PTX, a warp on 64 columns, bands of at most 32 KB beside a persistent ring): the odd shape's
# bf16 and tf32-rne rows with 8192³ beside them (one process, cuBLAS in it), then
# gpu_test_gemm's quick set. carry ["carry/p5.tar.xz"].
B=/tmp/p5; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p5.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
timeout 40 $B/bin/bench_gemm --archs=sm_90a --modes=bf16,tf32-rne --cfg=128x256x32w8g8 --cfg-bf16=128x256x64w8g8 \
  --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=8192,8191x8193x8190 2>&1 | grep -E '^ *(tilec|cublas (tf32|bf16))' | tr -s ' '
echo "== gemm quick t=$((SECONDS-S))"
TILEC_GPU_QUICK=1 timeout 110 $B/bin/gpu_test_gemm > /tmp/g.log 2>&1; echo "rc=$?"; grep -c ': ok' /tmp/g.log; grep -E 'FAIL|PASS' /tmp/g.log | head -5
echo "t=$((SECONDS-S))"
