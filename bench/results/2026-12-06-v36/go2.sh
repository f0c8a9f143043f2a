# Session 33, call 2: 3xtf32 with a K-major B (x @ W^T) on hardware: the swapped product with B's tile
# copied as A's and its fragments read from there (new), against -fno-wgmma-kmajor-b (the element
# copies it replaces) and a row-major B, cuBLAS SGEMM (B transposed where K-major) in each process,
# every row checked against fp64. Then gpu_test_gemm's quick set (3xtf32 K-major at 128x128 and
# 64x64 among its cases; M-major A the default now).
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
for v in "bk --b-kmajor" "bk-old --b-kmajor --copt=-fno-wgmma-kmajor-b" "rm"; do
  set -- $v; n=$1; shift
  t "$n"; bg --modes=3xtf32 --cfg=128x128x32w8 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | tee $OUT/bench_x3_$n.log | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
grep "3xtf32.*B K-major" $OUT/gemm.log | grep -c ": ok"; grep "M-major" $OUT/gemm.log | grep -c ": ok"
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
