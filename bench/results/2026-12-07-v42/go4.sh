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
# output (H100 80GB HBM3, build 239f99d; TFLOP/s at 4096³, 8192³, 8191x8193x8190, each shape: cuBLAS
# SGEMM, cuBLAS TF32, then tilec tf32-rna and tf32-rne, or tilec 3xtf32):
# tf32 default 1: 51.7  367.6  317.2  362.1  52.0  414.3  321.6  330.9  49.2  140.9  339.9  323.9
# tf32 cluster 1: 51.7  404.5  311.8  378.6  51.6  363.7  340.6  356.0  48.9  140.9  309.9  313.7
# 3xtf32 default 1: 51.7  385.6  103.2  51.7  412.6  94.9  49.2  139.8  95.9
# 3xtf32 cluster 1: 51.7  403.5  100.3  51.7  371.1  95.2  48.9  139.7  92.1
# tf32 default 2: 51.7  401.0  310.8  386.7  52.0  364.4  318.8  327.7  48.9  137.5  329.8  344.0
# tf32 cluster 2: 52.0  374.2  300.9  376.6  51.6  393.6  320.9  332.7  48.9  139.3  295.3  311.1
# 3xtf32 default 2: 52.1  400.8  102.6  51.7  411.3  94.1  49.2  139.8  95.9
# 3xtf32 cluster 2: 51.7  392.3  100.3  51.7  396.1  93.3  48.9  140.5  92.5
# tf32 default 3: 52.1  399.1  313.0  349.6  51.7  352.0  340.9  324.1  49.2  139.3  359.5  326.2
# tf32 cluster 3: 51.7  386.4  296.2  375.5  51.7  355.5  339.8  329.7  48.9  139.0  292.3  298.9
# 3xtf32 default 3: 51.7  395.5  103.7  51.7  352.8  94.9  49.3  138.7  95.2
# 3xtf32 cluster 3: 51.7  378.6  100.3  51.7  397.4  93.3  48.9  137.5  92.4
# gpu_test_gemm TILEC_TEST_CLUSTER=only: 74 ok, PASS (run4/cluster.log.gz)
