# Session 29, first device call (uncommitted build: -fwgmma-x3-pairs, with TILEC_X3_GROUP=G for
# groups of G steps): 3xtf32 128x128 at 4096³, 8192³, 8191x8193x8190, the default against part
# sums carried over 2 and 3 steps (one wait and RN add a group), three interleaved processes,
# cuBLAS SGEMM in each. Then bf16 at the odd shape against 8192³: the benchmark's row (cuBLAS bf16
# in the process) and ncu's per-kernel durations (staging copies, GEMM) at the clocks as found.
# carry ["carry/p1.tar.xz"].
T=${T:-480}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p1.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
A="--archs=sm_90a --modes=3xtf32 --target-ms=40 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 --cfg=128x128x32w8"
for r in 1 2 3; do
  for v in default pairs2 pairs3; do
    [ $((T - SECONDS + S)) -lt 200 ] && break 2
    echo "== r$r $v t=$((SECONDS-S))"
    case $v in
      default) timeout 60 $B/bin/bench_gemm $A ;;
      pairs2) timeout 60 $B/bin/bench_gemm $A --copt=-fwgmma-x3-pairs ;;
      pairs3) TILEC_X3_GROUP=3 timeout 60 $B/bin/bench_gemm $A --copt=-fwgmma-x3-pairs ;;
    esac 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
  done
done
echo "== bf16 t=$((SECONDS-S))"
BF="--archs=sm_90a --modes=bf16 --target-ms=40 --warmup-ms=20 --compile-runs=1 --cfg-bf16=128x256x64w8g8"
for r in 1 2; do
  timeout 60 $B/bin/bench_gemm $BF --shapes=8192,8191x8193x8190 2>&1 | grep -E '^ *(tilec|cublas)' | tr -s ' '
done
echo "== ncu t=$((SECONDS-S))"
for sh in 8191x8193x8190 8192; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes.sum --launch-count 12 \
    $B/bin/bench_gemm $BF --shapes=$sh --no-cublas --target-ms=1 --warmup-ms=1 --reps=1 2>&1 \
    | grep -E '^  [a-z_]+.*\(|gpu__time_duration|dram__bytes' | tr -s ' '
done
echo "t=$((SECONDS-S))"
