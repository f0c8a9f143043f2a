# Session 29, fifth device call (build b727adc + notes, carry/p4.tar.xz): the GPU tests on the
# final compiler, through the JIT too (TILEC_TEST_LOAD=source: its TMA-only kernels, C stored by
# TMA, and at C's odd rows its second module, whose checked stores now go by rows), after bf16 and
# tf32-rne at 8192³ and the odd shape, three processes, cuBLAS in each. carry ["carry/p4.tar.xz"].
B=/tmp/p4; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p4.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
for r in 1 2 3; do
  t "r$r"
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=bf16,tf32-rne --cfg=128x256x32w8g8 --cfg-bf16=128x256x64w8g8 \
    --target-ms=40 --warmup-ms=20 --compile-runs=1 --shapes=8192,8191x8193x8190 2>&1 | grep -E '^ *(tilec|cublas (tf32|bf16))' | tr -s ' '
done
t gemm source; TILEC_TEST_LOAD=source TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > /tmp/g1.log 2>&1; echo "rc=$?"; grep -c ': ok' /tmp/g1.log; grep -E 'FAIL|failing' /tmp/g1.log | head
for x in persistent ops accuracy preround; do
  t $x; TILEC_GPU_QUICK=1 timeout 100 $B/bin/gpu_test_$x > /tmp/$x.log 2>&1; echo "rc=$?"; grep -E 'FAIL|PASS|failing' /tmp/$x.log | tail -3
done
t random source; TILEC_TEST_LOAD=source TILEC_TEST_SEED=29201 TILEC_RANDOM_N=2000 timeout 40 $B/bin/gpu_test_random > /tmp/r.log 2>&1; echo "rc=$?"; grep -ciE 'fail|mismatch' /tmp/r.log; grep -E 'kernels,' /tmp/r.log | tail -1
echo "t=$((SECONDS-S))"
