# Session 36, call 6: -fwgmma-pingpong (3xtf32's two consumer warpgroups in turns at the tensor
# cores, a stage each) on hardware. (1) gpu_test_gemm's quick set with the option (a turn protocol
# that deadlocks or a part sum read early shows here), (2) 3xtf32 128x128 with and without it,
# three interleaved rounds (separate processes, cuBLAS SGEMM in each), row-major at 4096³, 8192³
# and the odd shape, (3) the K-major B and M-major A 3xtf32 kernels with and without, one round.
# Predicted: the tensor pipe from ~65% busy (v30's ncu) toward ~85-90%, so +10-25% where the
# card's power cap leaves the clock; 3xtf32 >= 2.0x SGEMM at 8192³. Needs carry at 641fd46 or later
# (the commit that added the option).
. bench/device/env.sh
S=$SECONDS; R=$OUT
t() { echo "== $* t=$((SECONDS-S))"; }
t gemm-pingpong; TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-pingpong timeout 200 $B/bin/gpu_test_gemm > $R/gemm_pp.log 2>&1
echo "rc=$?"; grep -c ': ok' $R/gemm_pp.log; grep -E 'FAIL|failing|timed out' $R/gemm_pp.log | head -5
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^\[|^ *(tilec|cublas sgemm)' | tr -s ' ' | cut -c1-100; }
for r in 1 2 3; do
  t "round $r default"; bg --shapes=4096,8192,8191x8193x8190 > $R/x3_r$r.log 2>&1; show < $R/x3_r$r.log
  t "round $r pingpong"; bg --shapes=4096,8192,8191x8193x8190 --copt=-fwgmma-pingpong > $R/x3pp_r$r.log 2>&1; show < $R/x3pp_r$r.log
done
for l in --b-kmajor --a-mmajor; do
  [ $((SECONDS-S)) -gt 500 ] && break
  t "$l default"; bg --shapes=4096,8192 $l 2>&1 | show
  t "$l pingpong"; bg --shapes=4096,8192 $l --copt=-fwgmma-pingpong 2>&1 | show
done
gzip $R/*.log
echo "t=$((SECONDS-S))"
