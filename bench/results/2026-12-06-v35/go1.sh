# Session 32, first device call (carry/r1.tar.xz, 73e5c39 + bench --b-bytes-swapped): why bf16 with a
# K-major B runs at 0.06x cuBLAS. (1) Kernel or data: at 4096^3 (ldb 4096 either way) each bf16 kernel
# on its own layout and on the other layout's bytes (--b-bytes-swapped: results wrong, times only);
# the grouped orders g1/g16; a row stride that is not a power of two. (2) ncu (clocks as found), one
# launch each of the K-major and the row-major bf16 kernel: speed of light, warp stalls, memory.
B=/tmp/r1; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/r1.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=bf16 --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
for v in "km --b-kmajor" "rm" "km-on-rm-bytes --b-kmajor --b-bytes-swapped" "rm-on-km-bytes --b-bytes-swapped"; do
  set -- $v; n=$1; shift
  t "$n"; bg --shapes=4096 --cfg-bf16=128x256x64w8g8,128x256x64w8g1 "$@" 2>&1 | tee $OUT/bench_$n.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
done
t "km 4096x4096x4160 g16"; bg --shapes=4096x4096x4160 --cfg-bf16=128x256x64w8g8,128x256x64w8g16 --b-kmajor 2>&1 | tee $OUT/bench_km_4160.log | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
for v in km rm; do
  t "ncu $v"; c=""; [ $v = km ] && c=--b-kmajor
  timeout 150 ncu --clock-control none -k gemm --launch-skip 3 --launch-count 1 --set full -o $OUT/ncu_$v -f \
    $B/bin/bench_gemm --archs=sm_90a --modes=bf16 --no-cublas --shapes=4096 --cfg-bf16=128x256x64w8g8 --reps=1 \
    --warmup-ms=1 --target-ms=1 --compile-runs=1 $c > $OUT/ncu_$v.run.txt 2>&1; echo "rc=$?"; tail -3 $OUT/ncu_$v.run.txt
  ncu --import $OUT/ncu_$v.ncu-rep --page details > $OUT/ncu_$v.details.txt 2>&1
  ncu --import $OUT/ncu_$v.ncu-rep --page raw --csv > $OUT/ncu_$v.raw.csv 2>&1
  ncu --import $OUT/ncu_$v.ncu-rep --page source --csv --print-source sass > $OUT/ncu_$v.sass.csv 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Cache Throughput|Executed Ipc Active|Stall|Issued Warp|No Eligible|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Achieved Occupancy|Bank" $OUT/ncu_$v.details.txt | head -40
done
gzip $OUT/*.log $OUT/*.csv $OUT/*.txt
echo "t=$((SECONDS-S))"
