# Session 23, first device call (at most ~9.5 minutes): the benchmark with cuBLAS and Triton in the
# same run (bench/run.sh, sm_90a, the default tiles) at 58e610a (session 22's final build: role
# functions, 3xtf32's spare tile), then 3xtf32 with g8/g4 against the 2-D grid, then ncu profiles of 3xtf32 128x128 at 8192³ and ieee 128x128 at
# 4096³ (where each kernel's time goes: the 3xtf32 8192³ row is at 1.85x SGEMM on the H100, ieee at
# 0.81x). carry ["carry/f.tar.xz"] (bin/: bench_gemm, libtilec_dev.so, gpu_test_gemm,
# gpu_test_accuracy, tilec_static). Results come back as one tarball, res.tar.xz.
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
ln -sf bin/tilec_static $B/tilec; mkdir -p $B/bench; ln -sf ../bin/bench_gemm $B/bench/bench_gemm
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a --compile-runs=3"
timeout 400 bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | tr -s ' ' | cut -c1-110 | head -80
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -30
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -40
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
timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --shapes=8192,4096 --cfg=128x128x32w8,128x128x32w8g8,128x128x32w8g4 \
  --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^\[|^ *(tilec|cublas sgemm)' | tr -s ' '; echo "g8 A/B t=$((SECONDS-S))"
prof x3 3xtf32 8192
prof ieee ieee 4096
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
