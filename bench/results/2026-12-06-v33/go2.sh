# Session 30, second device call (build 12166f5 + -fno-wgmma-preround-a, carry/p7.tar.xz): the GPU
# tests on this session's runtime (logs per thread, ptxas's exit) and the new option's tiles, then
# tf32-rna's A/B: the default (A and B copied rounded) against -fno-wgmma-preround-a (B alone copied
# rounded, A rounded in shared memory by the rounding warpgroup), 128x256 g8, 4096³ and 8192³, three
# interleaved processes a variant, cuBLAS TF32 in each. carry ["carry/p7.tar.xz"].
B=/tmp/p7; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p7.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
for x in preround faults; do
  t $x; TILEC_GPU_QUICK=1 timeout 90 $B/bin/gpu_test_$x > $OUT/$x.log 2>&1; echo "rc=$?"; grep -E 'FAIL|PASS|failing' $OUT/$x.log | tail -3
done
for r in 1 2 3; do
  for v in default preround-a; do
    t "r$r $v"; c=""; [ $v = preround-a ] && c=--copt=-fno-wgmma-preround-a
    timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 \
      --compile-runs=1 --shapes=4096,8192 $c 2>&1 | tee $OUT/bench_r${r}_$v.log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  done
done
t gemm; TILEC_TEST_COPT=-fno-wgmma-preround-a TILEC_GPU_QUICK=1 timeout 120 $B/bin/gpu_test_gemm > $OUT/gemm_pa.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm_pa.log; grep -E 'FAIL|failing' $OUT/gemm_pa.log | head -3
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
