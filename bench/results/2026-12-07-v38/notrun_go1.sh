# Session 35, call 1 (carry/b.tar.xz from bench/device/pack.sh at 1a434be, PTX-identical to 1f8b210 for
# these kernels): session 34's go1.sh cut to the device time left after seven refused starts this
# session. (1) gpu_test_gemm's quick set on hardware (am_transpose, ieee with a K-major B: until now
# only the interpreter ran them); (2) tf32 256x128 against 128x256 (NOTES v37's shared-memory model:
# 256x128 needs 11% fewer bytes a FLOP), trunc / rne / rna, 4096³ and 8192³, once each;
# (3) ieee 128x128 with a K-major B (B^T's rows to the FMA consumers) against a row-major B.
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 70 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^ *(tilec|cublas (sgemm|tf32))' | tr -s ' ' | cut -c1-110; }
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing|skip' $OUT/gemm.log | head -5
echo "f32 A M-major ok: $(grep ' f32 .*A M-major' $OUT/gemm.log | grep -c ': ok'); ieee B K-major ok: $(grep 'ieee .* f32 .*B K-major' $OUT/gemm.log | grep -c ': ok')"
for r in 1; do
  for c in 256x128x32w8g8 128x256x32w8g8; do
    t "tf32 $c round $r"; bg --modes=tf32-trunc,tf32-rne,tf32-rna --cfg=$c --shapes=4096,8192 2>&1 | show
  done
done
for v in "bk --b-kmajor" "rm"; do
  [ $((SECONDS-S)) -gt 200 ] && break
  set -- $v; n=$1; shift
  t "ieee $n"; bg --modes=ieee --cfg=128x128x32w8 --shapes=4096,8192 "$@" 2>&1 | show
done
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
