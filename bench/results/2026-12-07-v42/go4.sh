# Session 39 (any GPU): -fwgmma-cluster (experimental: two blocks share B's copies by TMA multicast,
# L2 traffic -22% in session 17's ncu) on today's kernels, against the JIT's default, three
# interleaved rounds: tf32-rna and tf32-rne at 128x256 g8, 3xtf32 at 128x128. The H100s run these
# kernels at their 700 W cap much of the time (go3.sh): fewer bytes through L2 might buy clock.
# Predicted: within noise (session 17's H200: as fast as without), +2-5% at 8192³ if power is the limit.
# Then gpu_test_gemm's cluster cases (TILEC_TEST_CLUSTER=only).
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 90 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | grep -E '^ *(tilec|cublas +(tf32|sgemm))' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s  ", $(i-1)}'; }
for r in 1 2 3; do
  echo "tf32 default $r: $(bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8)"
  echo "tf32 cluster $r: $(bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --copt=-fwgmma-cluster)"
  echo "3xtf32 default $r: $(bg --modes=3xtf32 --cfg=128x128x32w8)"
  echo "3xtf32 cluster $r: $(bg --modes=3xtf32 --cfg=128x128x32w8 --copt=-fwgmma-cluster)"
done
echo "== gpu_test_gemm cluster cases t=$((SECONDS-S))"
TILEC_TEST_CLUSTER=only timeout 150 $B/bin/gpu_test_gemm > $R/cluster.log 2>&1; echo "exit $?"
grep -c ': ok' $R/cluster.log; grep -E 'FAIL|BAD' $R/cluster.log | head -5; tail -1 $R/cluster.log
gzip $R/cluster.log; echo "t=$((SECONDS-S))"
