# Session 30, third device call (build 30f0a57 + -fwgmma-tma-direct where TMA only, carry/p9.tar.xz):
# the consumers waiting on the TMA's landed[] themselves (no relay through the rounding warpgroup)
# in the JIT's TMA-only kernels, persistent now too, and in tf32-rna's rounded entry. First
# gpu_test_gemm's quick set through the JIT with the option, then the A/B: default against
# -fwgmma-tma-direct, tf32-rne and tf32-rna 128x256 g8 at 4096³ and 8192³, three interleaved
# processes a variant, cuBLAS TF32 in each; then bf16 at 8192³ and the odd shape, two processes. carry ["carry/p9.tar.xz"].
B=/tmp/p9; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p9.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
t ops; TILEC_GPU_QUICK=1 timeout 60 $B/bin/gpu_test_ops > $OUT/ops.log 2>&1; echo "rc=$?"; grep -E 'fma|bf16|FAIL|PASS' $OUT/ops.log | tail -12
t preround; TILEC_TEST_LOAD=source TILEC_GPU_QUICK=1 timeout 60 $B/bin/gpu_test_preround > $OUT/preround_src.log 2>&1; echo "rc=$?"; grep -E 'FAIL|PASS' $OUT/preround_src.log | tail -2
t gemm; TILEC_TEST_LOAD=source TILEC_TEST_COPT=-fwgmma-tma-direct TILEC_GPU_QUICK=1 timeout 120 $B/bin/gpu_test_gemm > $OUT/gemm_direct.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm_direct.log; grep -E 'FAIL|failing' $OUT/gemm_direct.log | head -3
for r in 1 2 3; do
  for v in default direct; do
    t "r$r $v"; c=""; [ $v = direct ] && c=--copt=-fwgmma-tma-direct
    timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 \
      --compile-runs=1 --shapes=4096,8192 $c 2>&1 | tee $OUT/bench_r${r}_$v.log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  done
done
for r in 1 2; do
  t "bf16 r$r"; timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=bf16 --cfg-bf16=128x256x64w8g8 --target-ms=40 --warmup-ms=20 \
    --compile-runs=1 --shapes=8192,8191x8193x8190 2>&1 | tee $OUT/bench_bf16_r$r.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
done
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
