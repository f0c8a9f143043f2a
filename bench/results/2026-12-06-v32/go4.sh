# Session 29, fourth device call: checked stores by rows in bands beside a persistent pipeline's
# ring (uncommitted build in carry/p3.tar.xz) against go3's build (carry/p2.tar.xz: by rows only
# where the whole tile fits, so the persistent f32 kernels as before). The benchmark's kernels
# come from the JIT: at the odd shape C has no store map and the JIT's second module (no TMA
# store) stores with its own, checked stores. Three interleaved processes a build, cuBLAS in
# each; ncu on tf32-rne's GEMM kernel at the odd shape; gpu_test_gemm's quick set and random
# kernels (time-limited) on the new build. carry ["carry/p2.tar.xz", "carry/p3.tar.xz"].
for v in p2 p3; do rm -rf /tmp/$v; mkdir -p /tmp/$v; tar -C /tmp/$v -xJf carry/$v.tar.xz; done
export TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
A="--archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 --shapes=8192,8191x8193x8190"
for r in 1 2 3; do
  for v in p2 p3; do
    echo "== r$r $v t=$((SECONDS-S))"
    export LD_LIBRARY_PATH=/tmp/$v/bin
    timeout 90 /tmp/$v/bin/bench_gemm $A --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
    timeout 90 /tmp/$v/bin/bench_gemm $A --modes=3xtf32 --cfg=128x128x32w8 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
  done
done
export LD_LIBRARY_PATH=/tmp/p3/bin
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_op_write.sum
for sh in 8192 8191x8193x8190; do
  echo "== ncu p3 tf32-rne $sh t=$((SECONDS-S))"
  timeout 90 ncu --clock-control none -k regex:'^gemm' --launch-skip 1 --launch-count 1 --metrics $M \
    /tmp/p3/bin/bench_gemm --archs=sm_90a --modes=tf32-rne --cfg=128x256x32w8g8 --shapes=$sh --no-cublas --target-ms=1 --warmup-ms=1 --reps=1 2>&1 \
    | grep -E '^  gemm|gpu__time|dram__bytes|lts__t_sectors' | tr -s ' '
done
echo "== gemm quick t=$((SECONDS-S))"
TILEC_GPU_QUICK=1 timeout 200 /tmp/p3/bin/gpu_test_gemm > /tmp/gemm.log 2>&1; echo "rc=$?"
grep -c ': ok' /tmp/gemm.log; grep -v ': ok' /tmp/gemm.log | grep -v 'warning\|%d = dot\|\^' | head -20
echo "== random t=$((SECONDS-S))"
TILEC_TEST_SEED=29101 TILEC_RANDOM_N=2000 timeout 60 /tmp/p3/bin/gpu_test_random > /tmp/random.log 2>&1; echo "rc=$?"
grep -ciE 'fail|mismatch' /tmp/random.log; tail -2 /tmp/random.log
echo "t=$((SECONDS-S))"
