# Session 23: go1.sh's second half alone (3xtf32 g8/g4 against the 2-D grid; ncu of 3xtf32 128x128 at
# 8192³ and of ieee 128x128 at 4096³; ieee with -fwgmma-ffma-warp against without), for whichever GPU comes first. carry ["carry/f.tar.xz"].
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
ln -sf bin/tilec_static $B/tilec; mkdir -p $B/bench; ln -sf ../bin/bench_gemm $B/bench/bench_gemm
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
NCU=/usr/local/cuda/bin/ncu; command -v ncu >/dev/null && NCU=ncu
prof() { # name mode shape
  left=$((570 - SECONDS + S)); [ $left -lt 40 ] && { echo "no time for $1"; return; }
  timeout $left $NCU --clock-control none -k regex:gemm -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --section MemoryWorkloadAnalysis --section Occupancy -o $R/$1 $B/bin/bench_gemm --shapes=$3 --modes=$2 \
    --archs=sm_90a --cfg=128x128x32w8 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 > $R/$1.log 2>&1
  echo "ncu $1 exit $? t=$((SECONDS-S))"
  $NCU --import $R/$1.ncu-rep --page details > $R/$1_details.txt 2>&1
  $NCU --import $R/$1.ncu-rep --page source --csv --print-source sass > $R/$1_sass.csv 2>&1
  grep -E 'Duration|Throughput|Issue Slots|Warp Cycles|Stall|Registers|Achieved' $R/$1_details.txt | head -30
}
# 3xtf32 in the grouped order (g8) against the 2-D grid at the shapes where it falls short
timeout 120 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32,ieee --shapes=8192,4096 --cfg=128x128x32w8,128x128x32w8g8,128x128x32w8g4 \
  --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^\[|^ *(tilec|cublas sgemm)' | tr -s ' '; echo "g8 A/B t=$((SECONDS-S))"
# ieee: each warp of the FMA consumers a 4 x 8 block of their thread grid (-fwgmma-ffma-warp) against 2 x 16
for r in 1 2; do for o in "" -fwgmma-ffma-warp; do echo "== ieee r$r ${o:-default}"
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192 --cfg=128x128x32w8 ${o:+--copt=$o} \
    --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done; done; echo "warp A/B t=$((SECONDS-S))"
prof x3 3xtf32 8192
prof ieee ieee 4096
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
