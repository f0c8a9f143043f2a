# Session 35, call 2 (the same carry as notrun_go1.sh, which never got a machine: eight refused starts, ~330 s
# of device time left): tf32 256x128 against 128x256 first (trunc / rne / rna at 4096³ and 8192³),
# then gpu_test_gemm's quick set for what time is left (its log comes back cut where the call ends).
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 70 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^ *(tilec|cublas (sgemm|tf32))' | tr -s ' ' | cut -c1-110; }
for c in 256x128x32w8g8 128x256x32w8g8; do
  t "tf32 $c"; bg --modes=tf32-trunc,tf32-rne,tf32-rna --cfg=$c --shapes=4096,8192 2>&1 | show
done
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing|skip' $OUT/gemm.log | head -5
echo "t=$((SECONDS-S))"
