# session 17, second device call: -fwgmma-cluster with CTA-scope arrivals and waits (as CUTLASS; go1's
# cluster-scope version ran 1.25-1.7x slower than no cluster), its GPU cases alone with line-buffered
# output (go1's run of the whole quick suite timed out before showing them), speed and L2 bytes.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v20/go2.sh
. bench/device/env.sh
S=$SECONDS; END=430; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; local left=$((END - SECONDS + S)); [ $left -lt 20 ] && { echo "$name SKIPPED (no time)"; return; }
  [ $lim -gt $left ] && lim=$left
  ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $? (124: timed out)" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
TILEC_TEST_CLUSTER=only run t_cluster 120 $B/bin/gpu_test_gemm
grep -c ": ok" $L/t_cluster.log; tail -3 $L/t_cluster.log
for c in "--copt=-fwgmma-cluster" ""; do echo "== ${c:-no cluster}"
  run bench_${c:+cl} 90 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 \
    --cfg=128x256x32w8g8,128x128x32w8n --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fwgmma-tma-only $c
  grep -hE '^[0-9]+x.*tilec' $L/bench_${c:+cl}.log; done
q="--archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --no-cublas --modes=tf32-rne --shapes=8192 --cfg=128x256x32w8g8 --copt=-fwgmma-tma-only"
run ncu_cluster 45 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q --copt=-fwgmma-cluster
run ncu_plain 45 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q
grep -hE "Duration|lts__t_bytes|Cluster Size" $L/ncu_cluster.log $L/ncu_plain.log
TILEC_TEST_CLUSTER=only run synccheck 90 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm
tar -C $L -cJf $OUT/logs.tar.xz . && echo "t=$((SECONDS-S))"
