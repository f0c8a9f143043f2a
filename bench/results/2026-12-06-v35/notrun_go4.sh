# NOT RUN (session 32's device time ran out: every start after go3.sh failed). For the next call,
# with carry/b.tar.xz from bench/device/pack.sh at the current commit: f16/bf16 with an M-major A
# (A^T @ B, -fwgmma-mmajor-a, experimental until this has run) on hardware. (1) bf16 128x256 g8 with
# A M-major, the new path against the default element copies, with B row-major and K-major, cuBLAS
# bf16 (A transposed) in each process, each row checked against fp64; then the f32 modes with an
# M-major A (the swapped product's element copies of A). (2) gpu_test_gemm's quick set compiled
# (its 32 M-major cases pass the option). Then, if they pass: make it the default.
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 45 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
for v in "am --a-mmajor --copt=-fwgmma-mmajor-a" "am-old --a-mmajor" "am-bk --a-mmajor --b-kmajor --copt=-fwgmma-mmajor-a" "rm"; do
  set -- $v; n=$1; shift
  t "$n"; bg --modes=bf16 --cfg-bf16=128x256x64w8g8 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | tee $OUT/bench_$n.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
done
t "f32 am"; bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --shapes=4096 --a-mmajor 2>&1 | tee $OUT/bench_f32_am.log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
t gemm; TILEC_GPU_QUICK=1 timeout 130 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
grep "M-major" $OUT/gemm.log | grep -c ": ok"
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
