# session 17: session 16's notrun_next.sh (bench/results/2026-12-05-v19/), with the default persistent
# grouped kernel (128x256x32w8g8) beside the no-cluster runs. One call of at most ~9.5 minutes.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v20/go1.sh
. bench/device/env.sh
S=$SECONDS; END=560; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; local left=$((END - SECONDS + S)); [ $left -lt 20 ] && { echo "$name SKIPPED (no time)"; return; }
  [ $lim -gt $left ] && lim=$left
  ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $? (124: timed out)" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
# 1. -fwgmma-cluster: correctness first (a hang is the likely failure: a two-block protocol never run)
TILEC_TEST_CLUSTER=1 TILEC_GPU_QUICK=1 run t_gemm_cluster 150 $B/bin/gpu_test_gemm
grep -E "cluster" $L/t_gemm_cluster.log | head -24
TILEC_TEST_CLUSTER=1 TILEC_GPU_QUICK=1 run synccheck 100 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm
# 2. its speed against the same kernel without it (2-D grid, not persistent), cuBLAS in each process
for r in 1 2; do for c in "--copt=-fwgmma-cluster" ""; do echo "== ${c:-no cluster}"; g=; [ -z "$c" ] && g=,128x256x32w8g8
  run bench_${r}_${c:+cl} 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 \
    --cfg=128x256x32w8n,128x128x32w8n$g --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fwgmma-tma-only $c
  grep -hE '^[0-9]+x' $L/bench_${r}_${c:+cl}.log; done; done
q="--archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --no-cublas --modes=tf32-rne --shapes=8192 --cfg=128x256x32w8n --copt=-fwgmma-tma-only"
run ncu_cluster 45 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q --copt=-fwgmma-cluster
run ncu_plain 45 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q
grep -hE "Duration|lts__t_bytes|L2 Cache Throughput|Cluster Size" $L/ncu_cluster.log $L/ncu_plain.log
# 3. -fwgmma-ffma-wide: ieee at 8 x 16 a thread, checked against fp64 and timed with cuBLAS SGEMM
run ieee_wide 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192,8191x8193x8190,1000 \
  --cfg=128x128x32w8,256x128x32w8,128x256x32w8 --copt=-fwgmma-ffma-wide --target-ms=30 --warmup-ms=20 --compile-runs=1
grep -hE '^[0-9]+x' $L/ieee_wide.log
TILEC_TEST_COPT=-fwgmma-ffma-wide run t_gemm_ffma_wide 150 $B/bin/gpu_test_gemm
tar -C $L -cJf $OUT/logs.tar.xz . && echo "t=$((SECONDS-S))"
