# Session 41: session 40's notrun_go4.sh (never ran): gpu_test_strides on hardware, then a short sm_90a run against cuBLAS in the same process (tf32-rna, tf32-rne, 3xtf32 at 4096³, 8192³, 8191x8193x8190). Build 01f27fb.
. bench/device/env.sh
S=$SECONDS; R=$OUT
timeout 60 $B/bin/gpu_test_strides > $R/strides.log 2>&1; echo "strides exit $? $(tail -2 $R/strides.log | head -1) t=$((SECONDS-S))"
grep -E 'FAIL' $R/strides.log | head -5; gzip $R/strides.log
timeout ${LIMIT:-300} $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne,3xtf32 \
  --cfg=128x256x32w8g8,128x128x32w8 --shapes=4096,8192,8191x8193x8190 \
  --target-ms=30 --warmup-ms=20 --compile-runs=1 > $R/bench.log 2>&1; echo "exit $? t=$((SECONDS-S))"
sed -n '/^shape /,$p' $R/bench.log | cut -c1-130 | head -60
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
gzip $R/bench.log
