# Session 33, call 2 (carry/b.tar.xz from bench/device/pack.sh at the commit that adds the f32 M-major A):
# (1) 3xtf32 with a K-major B (x @ W^T): B's tile copied as A's, fragments read from there (new),
# against -fno-wgmma-kmajor-b (the element copies it replaces) and a row-major B. (2) f32 with an
# M-major A (A^T @ B, X^T dY): A^T's panels transposed in shared memory (new) against
# -fno-wgmma-mmajor-a (element copies) and a row-major A; tf32-rna/rne at 128x256 g8, 3xtf32 and
# ieee at 128x128. cuBLAS (SGEMM or TF32, its operands transposed to match) in each process, every
# row checked against fp64. (3, run first) gpu_test_gemm's quick set (3xtf32 K-major and f32 M-major among it).
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^ *(tilec|cublas (sgemm|tf32))' | tr -s ' ' | cut -c1-110; }
t gemm; TILEC_GPU_QUICK=1 timeout 180 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
echo "x3 B K-major ok: $(grep '3xtf32.*B K-major' $OUT/gemm.log | grep -c ': ok'); f32 A M-major ok: $(grep ' f32 .*A M-major' $OUT/gemm.log | grep -c ': ok')"
for v in "am --a-mmajor" "am-old --a-mmajor --copt=-fno-wgmma-mmajor-a" "rm"; do
  set -- $v; n=$1; shift
  t "tf32 $n"; bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | tee $OUT/bench_tf32_$n.log | show
done
for v in "bk --b-kmajor" "bk-old --b-kmajor --copt=-fno-wgmma-kmajor-b" "rm"; do
  set -- $v; n=$1; shift
  t "x3 $n"; bg --modes=3xtf32 --cfg=128x128x32w8 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | tee $OUT/bench_x3_$n.log | show
done
for v in "am --a-mmajor" "am-old --a-mmajor --copt=-fno-wgmma-mmajor-a" "rm"; do
  set -- $v; n=$1; shift
  t "x3/ieee $n"; bg --modes=3xtf32,ieee --cfg=128x128x32w8 --shapes=4096,8192 "$@" 2>&1 | tee $OUT/bench_x3ieee_$n.log | show
done
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
