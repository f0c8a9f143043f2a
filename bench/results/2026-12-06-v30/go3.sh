# Session 27, third device call: why 3xtf32 is 6-7% slower at 8192^3 than at 4096^3 (H200 2.06x /
# 1.90x SGEMM, H100 ~1.9x / ~1.8x): the clocks and power while each runs (nvidia-smi sampled every
# 20 ms beside bench_gemm), then ncu's speed-of-light and warp-state sections on one launch each.
# T seconds at most (default 300). carry ["carry/f.tar.xz"] (go1.sh's build).
T=${T:-300}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
mkdir -p $OUT
A="--archs=sm_90a --cfg=128x128x32w8 --target-ms=200 --warmup-ms=50 --compile-runs=1 --modes=3xtf32"
for s in 4096 8192; do
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 20 > $OUT/clocks_$s.csv &
  P=$!
  timeout 60 $B/bin/bench_gemm $A --shapes=$s 2>&1 | grep -E '^ *(tilec|cublas)' | tr -s ' '
  kill $P; wait $P 2>/dev/null
  echo "$s: samples $(wc -l < $OUT/clocks_$s.csv); sm clock MHz and W (sorted, every 10th):"
  awk -F', ' '{print $2, $3, $5}' $OUT/clocks_$s.csv | sort -n | awk 'NR%10==1' | tr '\n' ';'; echo
done
echo "t=$((SECONDS-S))"
for s in 4096 8192; do
  [ $((T - SECONDS + S)) -lt 60 ] && break
  timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:'^gemm' --section SpeedOfLight --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section LaunchStats $B/bin/bench_gemm $A --shapes=$s --no-cublas --target-ms=5 \
    --warmup-ms=5 > $OUT/ncu_$s.txt 2>&1
  echo "ncu $s exit $?"; grep -E 'Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|Stall|Registers|Block Size|Grid Size' $OUT/ncu_$s.txt | head -20
done
echo "t=$((SECONDS-S))"
