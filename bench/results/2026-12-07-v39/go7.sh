# Session 36, call 7: -fwgmma-x3-skew (experiment, uncommitted: run7/experiment.diff): consumer warpgroup 1 starts its
# first group once warpgroup 0's first is complete, then both run freely (go6: strict turns were 8-12%
# slower: one warpgroup's chain of 12 dependent wgmmas does not fill the tensor pipe). The offset should
# keep their per-stage drains apart while two chains run most of the time. Same runs as go6.sh.
. bench/device/env.sh
S=$SECONDS; R=$OUT
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^\[|^ *(tilec|cublas sgemm)' | tr -s ' ' | cut -c1-100; }
for r in 1 2 3; do
  t "round $r default"; bg --shapes=4096,8192,8191x8193x8190 > $R/x3_r$r.log 2>&1; show < $R/x3_r$r.log
  t "round $r skew"; bg --shapes=4096,8192,8191x8193x8190 --copt=-fwgmma-x3-skew > $R/x3sk_r$r.log 2>&1; show < $R/x3sk_r$r.log
done
t gemm-skew; TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-x3-skew timeout 200 $B/bin/gpu_test_gemm > $R/gemm_sk.log 2>&1
echo "rc=$?"; grep -c ': ok' $R/gemm_sk.log; grep -E 'FAIL|failing|timed out' $R/gemm_sk.log | head -5
gzip $R/*.log
echo "t=$((SECONDS-S))"
