# Session 23: (1) ieee's producers by TMA (A as tf32-trunc's, B as 32-column panels under the 128-byte
# swizzle, the FMA consumers reading their runs from the panels) against the build before (their own
# cp.async for A, a bulk copy per B row). carry ["carry/g.tar.xz"]: new/ and old/ each with
# bench_gemm, libtilec_dev.so (new/ also gpu_test_gemm). Predicted: the consumers' waits on full[]
# (12% of their samples in go2's profile) and the producers' ~240 instructions a step go: +5-12%.
# (2) 3xtf32 with -fwgmma-x3-slices (producer warp w splits k8 slice w and decides its hic alone: no
# named barrier a step; go2's profile: the producers 28% of their samples at it, the consumers 16% of
# theirs waiting on full[]) against the default, same build. Predicted +3-8% at 8192³.
# gpu_test_gemm's quick set runs with TILEC_TEST_COPT=-fwgmma-x3-slices (ieee by TMA is the default).
X=/tmp/g; rm -rf $X; mkdir -p $X; tar -C $X -xJf carry/g.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
TILEC_TEST_COPT=-fwgmma-x3-slices TILEC_GPU_QUICK=1 LD_LIBRARY_PATH=$X/new:$LD_LIBRARY_PATH timeout 150 $X/new/gpu_test_gemm > $R/gemm.log 2>&1
echo "gpu_test_gemm exit $? t=$((SECONDS-S))"; tail -1 $R/gemm.log; grep -v ': ok$' $R/gemm.log | head -5; grep -c 'sm_90a ieee.*ok' $R/gemm.log
for r in 1 2 3; do for v in old new; do echo "== $v r$r"
  LD_LIBRARY_PATH=$X/$v:$LD_LIBRARY_PATH timeout 80 $X/$v/bench_gemm --archs=sm_90a --modes=ieee \
    --shapes=4096,8192,8191x8193x8190 --cfg=128x128x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 \
    | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done; echo t=$((SECONDS-S)); done
for r in 1 2 3; do for o in "" -fwgmma-x3-slices; do echo "== 3xtf32 r$r ${o:-default}"
  LD_LIBRARY_PATH=$X/new:$LD_LIBRARY_PATH timeout 60 $X/new/bench_gemm --archs=sm_90a --modes=3xtf32 ${o:+--copt=$o} \
    --shapes=4096,8192,8191x8193x8190 --cfg=128x128x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 \
    | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done; echo t=$((SECONDS-S)); done
echo "== new, stages 5 and 6"
LD_LIBRARY_PATH=$X/new:$LD_LIBRARY_PATH timeout 80 $X/new/bench_gemm --archs=sm_90a --modes=ieee \
  --shapes=4096,8192 --cfg=128x128x32w8s5,128x128x32w8s6,64x256x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 \
  | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
echo t=$((SECONDS-S))
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
