# Session 22, a later device call: 3xtf32's two copies of A and a spare tile for hic (06a83de, 4
# stages at 128x128) against 600d1ea (three copies, 3 stages). carry ["carry/y.tar.xz"]: new/ with
# bench_gemm, libtilec_dev.so, gpu_test_gemm, gpu_test_accuracy; old/ with bench_gemm and
# libtilec_dev.so. Predicted: +5-13% as the diagnostic build (no hic at all) ran, a little less for
# the producers' vote and barrier a stage; the same error.
X=/tmp/y; rm -rf $X; mkdir -p $X; tar -C $X -xJf carry/y.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=$SECONDS
TILEC_GPU_QUICK=1 LD_LIBRARY_PATH=$X/new:$LD_LIBRARY_PATH timeout 150 $X/new/gpu_test_gemm > ${OUT:-/tmp}/gemm.log 2>&1
echo "gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 ${OUT:-/tmp}/gemm.log; grep FAIL ${OUT:-/tmp}/gemm.log | head -5
grep -c 'inf/nan.*ok' ${OUT:-/tmp}/gemm.log
LD_LIBRARY_PATH=$X/new:$LD_LIBRARY_PATH timeout 60 $X/new/gpu_test_accuracy > ${OUT:-/tmp}/accuracy.log 2>&1
echo "gpu_test_accuracy exit $? t=$((SECONDS-S))"; tail -1 ${OUT:-/tmp}/accuracy.log; grep 3xtf32 ${OUT:-/tmp}/accuracy.log | head -4
for r in 1 2 3; do for v in old new; do echo "== $v r$r"
  LD_LIBRARY_PATH=$X/$v:$LD_LIBRARY_PATH timeout 60 $X/$v/bench_gemm --archs=sm_90a --modes=3xtf32 \
    --shapes=4096,8192,8191x8193x8190,4096x4096x64 --cfg=128x128x32w8 --target-ms=40 --warmup-ms=30 --compile-runs=1 2>&1 \
    | grep -E '^[0-9]+x.*(tilec|cublas sgemm)|rror'
done; echo t=$((SECONDS-S)); done
