# Session 23: ieee's 8 x 16 FMA tiles (-fwgmma-ffma-wide: 256x128 and 128x256 with 8 warps, one
# producer warpgroup) now that the producers copy by TMA, against 128x128's 8 x 8. go5's profile:
# the 128x128 kernel issues in nearly every cycle, 92% of it FFMAs, so fewer shared loads and
# address instructions per FMA should now show (before TMA, v20: 0.69x against 0.79x).
# carry ["carry/f.tar.xz"].
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS
for r in 1 2; do
  echo "== r$r 128x128 default"
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192,8191x8193x8190 --cfg=128x128x32w8 \
    --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
  echo "== r$r wide 256x128, 128x256 g8"
  timeout 90 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192,8191x8193x8190 --cfg=256x128x32w8,128x256x32w8g8 \
    --copt=-fwgmma-ffma-wide --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
  echo t=$((SECONDS-S))
done
