# Session 25, second device call (T seconds at most, default 430: the device time left): go1.sh found
# 29 gpu_test_gemm failures with -fwgmma-tma-store, all elements written past a row's end inside its
# last 16-byte chunk (a TMA store writes whole chunks); this build encodes no store map where C's
# rows end inside one, and its JIT adds the option by default.
# 1. gpu_test_gemm's quick set with the option as compiled, and through the JIT's default.
# 2. tf32-rne at 4096^3 (go1.sh: 376.8/390.1 without, 364.4/330.5 with) and tf32-rna, three
#    interleaved rounds (the JIT's default against -fno-wgmma-tma-store), cuBLAS in each process;
#    the JIT cold rows with and without.
# 3. As time allows: the full benchmark with cuBLAS and Triton in the same run (bench/run.sh,
#    session 23's go4.sh SHAPES and BENCH_ARGS; the JIT's new default), gpu_test_accuracy.
# carry ["carry/f.tar.xz"] (bin/: bench_gemm, libtilec_dev.so, gpu_test_gemm, gpu_test_accuracy,
# tilec_static). Results come back as one tarball, res.tar.xz.
T=${T:-430}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
ln -sf bin/tilec_static $B/tilec; mkdir -p $B/bench; ln -sf ../bin/bench_gemm $B/bench/bench_gemm
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-tma-store timeout 100 $B/bin/gpu_test_gemm > $R/gemm_store.log 2>&1
echo "gpu_test_gemm (-fwgmma-tma-store) exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_store.log
TILEC_GPU_QUICK=1 TILEC_TEST_LOAD=source timeout 100 $B/bin/gpu_test_gemm > $R/gemm_jit.log 2>&1
echo "gpu_test_gemm (JIT, its default) exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_jit.log
grep -B6 FAIL $R/gemm_store.log $R/gemm_jit.log | head -20
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
for r in 1 2 3; do for o in -fno-wgmma-tma-store ""; do
  left=$((T - 60 - SECONDS + S)); [ $left -lt 20 ] && break
  echo "== r$r ${o:-default}"
  timeout 20 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --shapes=4096 --cfg=128x256x32w8g8 \
    ${o:+--copt=$o} --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
done; done; echo "A/B t=$((SECONDS-S))"
for o in -fno-wgmma-tma-store ""; do
  left=$((T - 30 - SECONDS + S)); [ $left -lt 15 ] && break
  timeout $left $B/bin/bench_gemm --compile-only --cfg=128x256x32w8g8 --modes=tf32-rna --archs=sm_90a --compile-runs=5 \
    ${o:+--copt=$o} 2>&1 | grep jit-cold
done
left=$((T - 10 - SECONDS + S)); if [ $left -gt 150 ]; then
  export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
  export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a --compile-runs=3"
  timeout $left bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
  tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
  grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | tr -s ' ' | cut -c1-110 | head -80
  grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -30
  grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -40
fi
left=$((T - SECONDS + S)); if [ $left -gt 10 ]; then
  timeout $left $B/bin/gpu_test_accuracy > $R/accuracy.log 2>&1; echo "gpu_test_accuracy exit $? t=$((SECONDS-S))"; tail -1 $R/accuracy.log
fi
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
