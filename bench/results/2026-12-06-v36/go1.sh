# Session 33, call 1: session 32's notrun_go4.sh as it was (f16/bf16 A M-major on hardware: bench against
# the element copies, checked vs fp64; gpu_test_gemm's quick set with the 32 M-major cases).
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
