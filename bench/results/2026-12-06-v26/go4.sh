# Session 23, the final device call (at most ~9.5 minutes): the benchmark with cuBLAS and Triton in
# the same run (bench/run.sh, sm_90a, the default tiles; go1.sh's SHAPES and BENCH_ARGS) with this
# session's build (ieee's pipeline by TMA), then ieee with -fwgmma-ffma-warp against without (it lost
# 1-5% before TMA), then gpu_test_gemm's quick set and gpu_test_accuracy as time allows.
# carry ["carry/f.tar.xz"] (bin/: bench_gemm, libtilec_dev.so, gpu_test_gemm, gpu_test_accuracy,
# tilec_static). Results come back as one tarball, res.tar.xz.
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
for r in 1 2; do for o in "" -fwgmma-ffma-warp; do
  left=$((560 - SECONDS + S)); [ $left -lt 30 ] && break
  echo "== ieee r$r ${o:-default}"
  timeout 40 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192 --cfg=128x128x32w8 ${o:+--copt=$o} \
    --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done; done; echo "warp A/B t=$((SECONDS-S))"
left=$((575 - SECONDS + S)); if [ $left -gt 40 ]; then
  TILEC_GPU_QUICK=1 timeout $left $B/bin/gpu_test_gemm > $R/gemm.log 2>&1; echo "gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 $R/gemm.log
fi
left=$((590 - SECONDS + S)); if [ $left -gt 10 ]; then
  timeout $left $B/bin/gpu_test_accuracy > $R/accuracy.log 2>&1; echo "gpu_test_accuracy exit $? t=$((SECONDS-S))"; tail -1 $R/accuracy.log
fi
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
