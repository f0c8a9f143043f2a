# Session 37, call 3 (any GPU): 3xtf32's wgmmas as two independent chains on halves of the
# accumulators (-fwgmma-x3-halves, experimental, uncommitted at first run: m64n64 wgmmas in turns
# instead of one m64n128 chain a warpgroup). Predicted: if a chain of dependent m64n128k8 wgmmas
# is what leaves the tensor pipe 65% busy (v30, v39: the warpgroups in turns lost), two chains a
# warpgroup fill it better: +5-15%. Three interleaved rounds, one process a row, cuBLAS SGEMM in
# each; then gpu_test_gemm's quick set with the option (correctness on hardware).
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@"; }
for round in 1 2 3; do
  for v in "def" "halves --copt=-fwgmma-x3-halves"; do
    set -- $v; n=$1; shift
    echo "== $n round $round t=$((SECONDS-S))"
    bg "$@" > $R/$n$round.log 2>&1
    grep -E '^ *(tilec|cublas sgemm)' $R/$n$round.log | tr -s ' ' | cut -c1-110
  done
done
echo "== gpu_test_gemm quick, -fwgmma-x3-halves t=$((SECONDS-S))"
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-x3-halves timeout 300 $B/bin/gpu_test_gemm > $R/gemm_h.log 2>&1; echo "exit $?"
grep -c ': ok' $R/gemm_h.log; grep -E 'FAIL|BAD' $R/gemm_h.log | head; tail -2 $R/gemm_h.log
tar -C $R -czf $R/logs.tgz $(cd $R && ls *.log) && rm -f $R/*.log
echo "t=$((SECONDS-S))"
