# Session 23, last device call: 3xtf32 with two producer warpgroups, each splitting every other step
# (-fwgmma-x3-two-producers: 512 threads, producers 56 registers, consumers 200) against the default
# (one producer warpgroup), same build, three interleaved rounds; gpu_test_gemm's quick set with the
# option; an ncu profile of ieee 128x128 by TMA at 4096³ (where its time goes now).
# carry ["carry/f.tar.xz"]. Predicted: if the one producer warpgroup's split is what keeps the
# consumers waiting on full[] (16% of their samples at 8192³, go2.sh), +5-15% at 8192³.
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
S=$SECONDS; R=/tmp/res; rm -rf $R; mkdir -p $R
for r in 1 2 3; do for o in "" -fwgmma-x3-two-producers; do echo "== 3xtf32 r$r ${o:-default}"
  timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 ${o:+--copt=$o} \
    --shapes=4096,8192,8191x8193x8190,4096x4096x64 --cfg=128x128x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 2>&1 \
    | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '
done; echo t=$((SECONDS-S)); done
TILEC_TEST_COPT=-fwgmma-x3-two-producers TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $R/gemm_x3two.log 2>&1
echo "gpu_test_gemm (-fwgmma-x3-two-producers) exit $? t=$((SECONDS-S))"; tail -1 $R/gemm_x3two.log; grep -v ': ok$' $R/gemm_x3two.log | grep -v '^device' | head -5
NCU=/usr/local/cuda/bin/ncu; command -v ncu >/dev/null && NCU=ncu
left=$((560 - SECONDS + S)); if [ $left -gt 40 ]; then
  timeout $left $NCU --clock-control none -k regex:gemm -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters -o $R/ieee_tma $B/bin/bench_gemm --shapes=4096 --modes=ieee \
    --archs=sm_90a --cfg=128x128x32w8 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 > $R/ieee_tma.log 2>&1
  echo "ncu exit $? t=$((SECONDS-S))"
  $NCU --import $R/ieee_tma.ncu-rep --page details > $R/ieee_tma_details.txt 2>&1
  $NCU --import $R/ieee_tma.ncu-rep --page source --csv --print-source sass > $R/ieee_tma_sass.csv 2>&1
  rm -f $R/ieee_tma.ncu-rep; gzip $R/ieee_tma_sass.csv
fi
tar -C /tmp -cJf ${OUT:-/tmp}/res.tar.xz res
echo "t=$((SECONDS-S))"
