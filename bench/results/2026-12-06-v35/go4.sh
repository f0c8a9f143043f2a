# Session 32, fourth call (carry/b.tar.xz from bench/device/pack.sh at 4f0b3ac): f16/bf16 with an
# M-major A (A^T @ B) on hardware (the device time was short: the bench first, each row checked
# against fp64, then gpu_test_gemm's quick set compiled, not through the JIT). (1) bf16 128x256 g8 with A M-major, the new path against the element copies
# it replaces (-fno-wgmma-mmajor-a), with B row-major and K-major, cuBLAS bf16 (A transposed) in each
# process; then the f32 modes with an M-major A (still the swapped product's element copies of A).
# (2) gpu_test_gemm's quick set (its 32 new A M-major cases).
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 45 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
for v in "am --a-mmajor" "am-old --a-mmajor --copt=-fno-wgmma-mmajor-a" "am-bk --a-mmajor --b-kmajor" "rm"; do
  set -- $v; n=$1; shift
  t "$n"; bg --modes=bf16 --cfg-bf16=128x256x64w8g8 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | tee $OUT/bench_$n.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
done
t "f32 am"; bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --shapes=4096 --a-mmajor 2>&1 | tee $OUT/bench_f32_am.log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
t gemm; TILEC_GPU_QUICK=1 timeout 130 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
grep "M-major" $OUT/gemm.log | grep -c ": ok"
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
