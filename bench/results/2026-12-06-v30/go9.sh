# Session 27, ninth device call, asked of an H200: gpu_test_preround with its new check (the
# rounded entry launched wherever views went rounded; build 86faeb5), then go1.sh's A/B on the
# card the targets name: tf32-rna by default against -fno-wgmma-preround-b, two interleaved
# rounds, cuBLAS TF32 in each process. T seconds (default 300). carry ["carry/f.tar.xz"].
T=${T:-300}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 90 $B/bin/gpu_test_preround > /tmp/pre.log 2>&1; echo "gpu_test_preround exit $? t=$((SECONDS-S)): $(tail -1 /tmp/pre.log) ($(grep -c 'launched gemm\$rounded: ok' /tmp/pre.log) rounded-entry checks ok)"
grep -m5 FAIL /tmp/pre.log
A="--archs=sm_90a --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --modes=tf32-rna --shapes=4096,8192"
for r in 1 2; do
  [ $((T - SECONDS + S)) -lt 60 ] && break
  for c in "" -fno-wgmma-preround-b; do
    echo "== r$r ${c:-default}"
    timeout 45 $B/bin/bench_gemm $A ${c:+--copt=$c} 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  done
done
echo "t=$((SECONDS-S))"
