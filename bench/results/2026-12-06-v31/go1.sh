# Session 28, first device call (build abe898b): 3xtf32's program order at 128x128 — the 2-D
# grid (g1) against the grouped orders g4, g8, g16 — at 4096³, 8192³ and 8191x8193x8190, three
# interleaved processes, cuBLAS SGEMM in each (session 26's one run each: g8 +4% at 8192³, -6% at
# 4096³). T seconds (default 420). carry ["carry/f.tar.xz"].
T=${T:-420}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
A="--archs=sm_90a --modes=3xtf32 --target-ms=40 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190"
for r in 1 2 3; do
  for c in 128x128x32w8 128x128x32w8g8 128x128x32w8g4 128x128x32w8g16; do
    [ $((T - SECONDS + S)) -lt 50 ] && break 2
    echo "== r$r $c t=$((SECONDS-S))"
    timeout 60 $B/bin/bench_gemm $A --cfg=$c 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
  done
done
echo "t=$((SECONDS-S))"
