# Session 31, first device call (build b391bc3 + bench --b-kmajor, carry/q1.tar.xz): B K-major
# (lower_wgmma_kmajor.c) on hardware. First cuBLAS TF32 by layout (layout_probe.py: NN against
# TN, clock and power), then the speed: tilec tf32-rna/rne/trunc 128x256 g8 with B K-major against
# the row-major default, cuBLAS TF32 (TN / NN) in each process, two interleaved rounds; then
# gpu_test_gemm's quick set compiled and through the JIT (its new K-major cases).
B=/tmp/q1; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/q1.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
t probe; timeout 90 python3 bench/results/2026-12-06-v34/layout_probe.py --quick > $OUT/layout_probe.txt 2>&1; echo "rc=$?"; cat $OUT/layout_probe.txt
for r in 1 2; do
  for v in kmajor rowmajor; do
    t "r$r $v"; c=""; [ $v = kmajor ] && c=--b-kmajor
    timeout 70 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne,tf32-trunc --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 \
      --compile-runs=1 --shapes=4096,8192 $c 2>&1 | tee $OUT/bench_r${r}_$v.log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  done
done
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
t gemm-jit; TILEC_TEST_LOAD=source TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm_src.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm_src.log; grep -E 'FAIL|failing' $OUT/gemm_src.log | head -5
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
