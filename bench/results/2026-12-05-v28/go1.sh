# Session 25: session 24's notrun_go1.sh (bench/results/2026-12-05-v27/) as it was planned, on the first GPU lent since.
# experimental -fwgmma-tma-store on hardware. carry ["carry/f.tar.xz"] (bin/: bench_gemm,
# libtilec_dev.so, gpu_test_gemm, tilec_static; from a build of afa39e1 or later).
# 1. gpu_test_gemm's quick set with the option, loaded as compiled and through the JIT (TMA only:
#    C's map required, the full kernel at launches without it). The interpreter runs the TMA store
#    at once; the hardware's is asynchronous, so this is the test of the waits and fences.
# 2. Speed, interleaved, two rounds: the JIT's kernels with and without the option (128x256 g8 for
#    tf32-rna / tf32-rne, 128x128 for 3xtf32) at 4096³ and 8192³, cuBLAS in each process.
#    Predicted: within ±3% (the epilogue is ~1% of a 4096³ tile's time; 16 named barriers and 64
#    TMA stores a tile against 64 8-byte global stores a thread).
# 3. The JIT cold rows with and without it (predicted -20 to -25%: 214 -> 163 ms on the 2-core
#    build machine).
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-tma-store timeout 150 $B/bin/gpu_test_gemm > $R/gemm_store.log 2>&1
echo "gpu_test_gemm (-fwgmma-tma-store) exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_store.log
TILEC_GPU_QUICK=1 TILEC_TEST_LOAD=source TILEC_TEST_COPT=-fwgmma-tma-store timeout 150 $B/bin/gpu_test_gemm > $R/gemm_store_jit.log 2>&1
echo "gpu_test_gemm (JIT, -fwgmma-tma-store) exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_store_jit.log
for r in 1 2; do for o in "" -fwgmma-tma-store; do
  echo "== r$r ${o:-default}"
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --shapes=4096,8192 --cfg=128x256x32w8g8 \
    ${o:+--copt=$o} --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --shapes=4096,8192 --cfg=128x128x32w8 \
    ${o:+--copt=$o} --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done; done; echo "A/B t=$((SECONDS-S))"
for o in "" -fwgmma-tma-store; do
  $B/bin/bench_gemm --compile-only --cfg=128x256x32w8g8 --modes=tf32-rna --archs=sm_90a --compile-runs=5 ${o:+--copt=$o} \
    2>&1 | grep jit-cold
done
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
