# session 17, first device call: -fwgmma-cluster (one program a block, and persistent with pairs of
# programs, 6a1d69e) and -fwgmma-ffma-wide, neither run on a GPU before. One call
# of at most ~9.5 minutes, every step under a timeout and a deadline (a hang is the likely failure).
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v20/go1.sh
. bench/device/env.sh
S=$SECONDS; END=560; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; local left=$((END - SECONDS + S)); [ $left -lt 20 ] && { echo "$name SKIPPED (no time)"; return; }
  [ $lim -gt $left ] && lim=$left
  ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $? (124: timed out)" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
# 1. correctness first: the cluster cases (one program a block, then persistent, then the grouped example)
TILEC_TEST_CLUSTER=1 TILEC_GPU_QUICK=1 run t_gemm_cluster 240 $B/bin/gpu_test_gemm
grep -E "cluster" $L/t_gemm_cluster.log | head -60
# 2. speed: cluster vs not, the benchmark's grouped persistent kernel and the 2-D non-persistent ones, cuBLAS in each process
for r in 1; do for c in "--copt=-fwgmma-cluster" ""; do echo "== ${c:-no cluster}"
  run bench_${r}_${c:+cl} 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 \
    --cfg=128x256x32w8g8,128x256x32w8n,128x128x32w8n --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fwgmma-tma-only $c
  grep -hE '^[0-9]+x|cublas' $L/bench_${r}_${c:+cl}.log | head -20; done; done
q="--archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --no-cublas --modes=tf32-rne --shapes=8192 --cfg=128x256x32w8g8 --copt=-fwgmma-tma-only"
run ncu_cluster 45 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q --copt=-fwgmma-cluster
run ncu_plain 45 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q
grep -hE "Duration|lts__t_bytes|L2 Cache Throughput|Cluster Size|Grid Size|SM Frequency" $L/ncu_cluster.log $L/ncu_plain.log
# 3. -fwgmma-ffma-wide: ieee at 8 x 16 a thread, checked against fp64 and timed with cuBLAS SGEMM
run ieee_wide 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192,8191x8193x8190,1000 \
  --cfg=128x128x32w8,256x128x32w8,128x256x32w8 --copt=-fwgmma-ffma-wide --target-ms=30 --warmup-ms=20 --compile-runs=1
grep -hE '^[0-9]+x|sgemm|cublas' $L/ieee_wide.log | head -20
TILEC_TEST_COPT=-fwgmma-ffma-wide run t_gemm_ffma_wide 120 $B/bin/gpu_test_gemm
for r in 2; do for c in "--copt=-fwgmma-cluster" ""; do echo "== ${c:-no cluster}"
  run bench_${r}_${c:+cl} 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 \
    --cfg=128x256x32w8g8,128x256x32w8n,128x128x32w8n --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fwgmma-tma-only $c
  grep -hE '^[0-9]+x|cublas' $L/bench_${r}_${c:+cl}.log | head -20; done; done
TILEC_TEST_CLUSTER=1 TILEC_GPU_QUICK=1 run synccheck 100 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm
tar -C $L -cJf $OUT/logs.tar.xz . && echo "t=$((SECONDS-S))"
