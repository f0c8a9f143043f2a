# Session 29, second device call (build as go1's, carry/p1.tar.xz): where bf16's kernel loses at
# the odd shape (go1: its GEMM kernel 1.77-1.80 ms against 1.45 at 8192³ under ncu, DRAM 2.1-2.3 GB
# against 1.75). ncu on the GEMM kernel alone (clocks as found): duration, DRAM read and write
# bytes, L2 read and write sectors, for shapes that are odd in one dimension at a time (C's rows
# off 8 bytes or only off 16; A's or B's rows staged; M odd), and tf32-rne's kernel at the odd
# shape and 8192³ beside it. carry ["carry/p1.tar.xz"].
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p1.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum
prof() { # mode cfg shape
  echo "== $1 $3 t=$((SECONDS-S))"
  timeout 90 ncu --clock-control none -k regex:'^gemm' --launch-skip 1 --launch-count 2 --metrics $M \
    $B/bin/bench_gemm --archs=sm_90a --modes=$1 $2 --shapes=$3 --no-cublas --target-ms=1 --warmup-ms=1 --reps=1 2>&1 \
    | grep -E '^  gemm|gpu__time|dram__bytes|lts__t_sectors' | tr -s ' '
}
for sh in 8192 8191x8193x8190 8192x8193x8192 8192x8194x8192 8192x8192x8190 8191x8192x8192; do
  prof bf16 --cfg-bf16=128x256x64w8g8 $sh
done
for sh in 8192 8191x8193x8190; do
  prof tf32-rne --cfg=128x256x32w8g8 $sh
done
echo "t=$((SECONDS-S))"
