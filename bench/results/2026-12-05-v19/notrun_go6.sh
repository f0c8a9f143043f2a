# session 16, prepared for the next device call, NOT RUN (no device time left): the experimental
# -fwgmma-cluster (2-CTA clusters sharing B's copies by TMA multicast; bench/NOTES.md v19, docs/TIR.md
# "Clusters"), first for correctness (its gpu_test_gemm cases, then synccheck on them), then against the
# same kernel without it: speed with cuBLAS, L2 traffic (ncu) and SM clock under the power cap.
# Pack with bench/device/pack.sh, carry ["carry"]. Every step under a timeout: the protocol spans two
# blocks and has never run, so a hang is the likely failure.
. bench/device/env.sh
S=$SECONDS; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $? (124: timed out)" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
TILEC_TEST_CLUSTER=1 TILEC_GPU_QUICK=1 run t_gemm_cluster 150 $B/bin/gpu_test_gemm
grep -E "cluster" $L/t_gemm_cluster.log | head -24
TILEC_TEST_CLUSTER=1 TILEC_GPU_QUICK=1 run synccheck 120 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm
bb() { timeout 90 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8n,128x128x32w8n \
  --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fwgmma-tma-only "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
for r in 1 2; do echo "== cluster"; bb --copt=-fwgmma-cluster; echo "== no cluster"; bb; done | tee $L/ab.log
q="--archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --no-cublas --modes=tf32-rne --shapes=8192 --cfg=128x256x32w8n --copt=-fwgmma-tma-only"
run ncu_cluster 60 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q --copt=-fwgmma-cluster
run ncu_plain 60 ncu --section SpeedOfLight --section LaunchStats --metrics lts__t_bytes.sum -k regex:'^gemm' --launch-count 1 $B/bin/bench_gemm $q
grep -hE "Duration|lts__t_bytes|L2 Cache Throughput|Cluster Size" $L/ncu_cluster.log $L/ncu_plain.log
tar -C $L -cJf $OUT/logs.tar.xz . && echo "t=$((SECONDS-S))"
