# Session 27, first device call (build cc8edcf): -fno-wgmma-preround-b, tf32-rna's launch copying
# only A rounded (B rounded in the consumers' registers by both entries), against the default
# (A and B copied rounded). Checks first, then interleaved A/B rounds with cuBLAS in each process.
# T seconds at most (default 420). carry ["carry/f.tar.xz"].
T=${T:-420}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 90 $B/bin/gpu_test_preround > /tmp/pre.log 2>&1; echo "gpu_test_preround exit $? t=$((SECONDS-S))"
grep -E 'FAIL' /tmp/pre.log | head; tail -1 /tmp/pre.log
A="--archs=sm_90a --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1"
for r in 1 2 3; do
  [ $((T - SECONDS + S)) -lt 100 ] && break
  echo "== r$r default (A and B pre-rounded)"
  timeout 45 $B/bin/bench_gemm $A --modes=tf32-rna,tf32-rne --shapes=4096,8192 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  echo "== r$r -fno-wgmma-preround-b (A alone)"
  timeout 45 $B/bin/bench_gemm $A --modes=tf32-rna --shapes=4096,8192 --copt=-fno-wgmma-preround-b 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
done
echo "t=$((SECONDS-S))"
for c in "" -fno-wgmma-preround-b; do
  [ $((T - SECONDS + S)) -lt 60 ] && break
  echo "== odd ${c:-default}"
  timeout 45 $B/bin/bench_gemm $A --modes=tf32-rna --shapes=8191x8193x8190 ${c:+--copt=$c} 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
done
echo "t=$((SECONDS-S))"
[ $((T - SECONDS + S)) -gt 60 ] && { TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fno-wgmma-preround-b timeout $((T - SECONDS + S - 10)) $B/bin/gpu_test_gemm > /tmp/gemm_q.log 2>&1; echo "gpu_test_gemm (-fno-wgmma-preround-b) exit $? t=$((SECONDS-S))"; grep -E "FAIL" /tmp/gemm_q.log | head; tail -1 /tmp/gemm_q.log; }
mkdir -p $OUT && cp /tmp/pre.log /tmp/gemm_q.log $OUT/ 2>/dev/null
echo "t=$((SECONDS-S))"
