# Session 26, first device call (T seconds at most, default 540). Session 25 made -fwgmma-tma-store
# the JIT's default; its A/B had tf32-rne at 4096^3 -3% and -15% in two rounds (128x256: one 16-row
# buffer, the issuer waiting for its own band). This build adds -fwgmma-tma-store-two-buffers
# (8-row bands, two buffers at 128x256).
# 1. gpu_test_gemm's quick set with -fwgmma-tma-store -fwgmma-tma-store-two-buffers (as compiled).
# 2. tf32-rne and tf32-rna at 4096^3 (128x256x32w8g8), three interleaved rounds of three variants:
#    -fno-wgmma-tma-store, the JIT's default (the store, one 16-row buffer), two buffers; cuBLAS in
#    each process. Then one round at 8192^3.
# 3. The full benchmark with cuBLAS and Triton in the same run (bench/run.sh, session 23's go4.sh
#    SHAPES and BENCH_ARGS; the JIT's default), then gpu_test_accuracy.
# carry ["carry/f.tar.xz"] (bin/: bench_gemm, libtilec_dev.so, gpu_test_gemm, gpu_test_accuracy,
# tilec_static). Results come back as one tarball, res.tar.xz.
T=${T:-540}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
ln -sf bin/tilec_static $B/tilec; mkdir -p $B/bench; ln -sf ../bin/bench_gemm $B/bench/bench_gemm
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
TWO="-fwgmma-tma-store -fwgmma-tma-store-two-buffers"
TILEC_GPU_QUICK=1 TILEC_TEST_COPT="$TWO" timeout 100 $B/bin/gpu_test_gemm > $R/gemm_two.log 2>&1
echo "gpu_test_gemm ($TWO) exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_two.log
grep -B6 FAIL $R/gemm_two.log | head -20
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
ab() { # $1 shape, then the variants' options ("" = the JIT's default)
  local sh=$1; shift
  for o in "$@"; do
    left=$((T - 300 - SECONDS + S)); [ $left -lt 20 ] && return
    echo "== $sh ${o:-default}"
    timeout 30 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --shapes=$sh --cfg=128x256x32w8g8 \
      ${o:+--copt="$o"} --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
  done
}
for r in 1 2 3; do echo "== round $r"; ab 4096 -fno-wgmma-tma-store "" -fwgmma-tma-store-two-buffers; done
ab 8192 -fno-wgmma-tma-store "" -fwgmma-tma-store-two-buffers
echo "A/B t=$((SECONDS-S))"
left=$((T - 20 - SECONDS + S)); if [ $left -gt 150 ]; then
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
