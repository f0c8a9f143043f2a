# session 16, device call 3 (after go1/go2): the day's changes under the GPU tests (the JIT's
# -fwgmma-tma-only default with the usual staging rule; RNA's NaN guard as one asm call), then where
# the 128x256 tf32 kernel's time goes next to cuBLAS's (ncu: L2 traffic and throughput, cluster size),
# then tiles and group sizes for tf32 and ieee with cuBLAS in the same process.
. bench/device/env.sh
S=$SECONDS; END=560; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; local left=$((END - SECONDS + S)); [ $left -lt 20 ] && { echo "$name SKIPPED (no time)"; return; }
  [ $lim -gt $left ] && lim=$left
  ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $?" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_round_all 60 $B/bin/gpu_test_round_all
run t_preround 60 $B/bin/gpu_test_preround
run t_gemm 150 $B/bin/gpu_test_gemm
grep -c "loaded them with their own copies" $L/t_gemm.log
for t in autotune accuracy; do run t_$t 60 $B/bin/gpu_test_$t; done
q="--archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1"
for sh in 4096 8192; do
  run ncu_$sh 75 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --metrics lts__t_bytes.sum,dram__bytes_read.sum \
    -k regex:'gemm|sm90|xmma|cutlass' --launch-count 3 $B/bin/bench_gemm $q --modes=tf32-rne,tf32-rna --shapes=$sh --cfg=128x256x32w8g8
  grep -E '^\s+[a-z_0-9]+.*\(|Duration|Throughput|lts__|dram__|Cluster|Grid Size|Block Size|Registers|Shared Memory Config|Dynamic Shared|Achieved Occ' $L/ncu_$sh.log | head -80
done
bb() { timeout $1 $B/bin/bench_gemm --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 "${@:2}" 2>&1 | grep -E '^[0-9]+x|rror'; }
left=$((END - SECONDS + S)); [ $left -gt 150 ] && left=150
[ $left -gt 20 ] && bb $left --shapes=4096,8192 --modes=tf32-rne,tf32-rna --cfg=128x256x32w8g8,128x256x32w8g4,128x256x32w8g16,128x256x32w8g8s3 | tee $L/sweep_tf32.log
left=$((END + 30 - SECONDS + S)); [ $left -gt 90 ] && left=90
[ $left -gt 20 ] && bb $left --shapes=4096,8192 --modes=ieee --cfg=128x128x32w8,128x128x16w8,128x64x32w8,64x128x32w4,128x128x32w4,256x128x32w8 | tee $L/sweep_ieee.log
tar -C $L -cJf $OUT/logs.tar.xz . && ls -la $OUT
echo "t=$((SECONDS-S))"
