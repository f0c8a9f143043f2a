# Session 29, third device call: checked stores by rows through shared memory (uncommitted build
# in carry/p2.tar.xz, against go1's build in carry/p1.tar.xz). ncu on bf16's GEMM kernel at the
# shapes where go2 found C's stores costly; the benchmark's bf16 row at 8192³ and the odd shape,
# three interleaved processes a build, cuBLAS bf16 in each; then gpu_test_gemm's quick set and
# random kernels (time-limited) on the new build. carry ["carry/p1.tar.xz", "carry/p2.tar.xz"].
for v in p1 p2; do rm -rf /tmp/$v; mkdir -p /tmp/$v; tar -C /tmp/$v -xJf carry/$v.tar.xz; done
export TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum
for sh in 8192 8192x8193x8192 8191x8193x8190 8192x8194x8192; do
  echo "== ncu p2 bf16 $sh t=$((SECONDS-S))"
  LD_LIBRARY_PATH=/tmp/p2/bin timeout 90 ncu --clock-control none -k regex:'^gemm' --launch-skip 1 --launch-count 1 --metrics $M \
    /tmp/p2/bin/bench_gemm --archs=sm_90a --modes=bf16 --cfg-bf16=128x256x64w8g8 --shapes=$sh --no-cublas --target-ms=1 --warmup-ms=1 --reps=1 2>&1 \
    | grep -E '^  gemm|gpu__time|dram__bytes|lts__t_sectors' | tr -s ' '
done
BF="--archs=sm_90a --modes=bf16 --target-ms=40 --warmup-ms=20 --compile-runs=1 --cfg-bf16=128x256x64w8g8 --shapes=8192,8191x8193x8190"
for r in 1 2 3; do
  for v in p1 p2; do
    echo "== r$r $v t=$((SECONDS-S))"
    LD_LIBRARY_PATH=/tmp/$v/bin timeout 60 /tmp/$v/bin/bench_gemm $BF 2>&1 | grep -E '^ *(tilec|cublas bf16)' | tr -s ' '
  done
done
echo "== gemm quick t=$((SECONDS-S))"
export LD_LIBRARY_PATH=/tmp/p2/bin
TILEC_GPU_QUICK=1 timeout 200 /tmp/p2/bin/gpu_test_gemm > /tmp/gemm.log 2>&1; echo "rc=$?"
grep -c ': ok' /tmp/gemm.log; grep -v ': ok' /tmp/gemm.log | head -20
echo "== random t=$((SECONDS-S))"
TILEC_TEST_SEED=29001 TILEC_RANDOM_N=2000 timeout 90 /tmp/p2/bin/gpu_test_random > /tmp/random.log 2>&1; echo "rc=$?"
grep -ciE 'fail|mismatch' /tmp/random.log; tail -3 /tmp/random.log
echo "t=$((SECONDS-S))"
