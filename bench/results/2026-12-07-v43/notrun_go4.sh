# Session 40 (not run: no machine started, then too little device time; what comes; too little device time was left for go3.sh's full run): gpu_test_strides
# (new), then today's
# build against cuBLAS in the same process, sm_90a only, no Triton: the target rows' kernels at
# 4096³, 8192³ and 8191x8193x8190. Predicted on an H100: as session 38's full run (tf32-rna
# ~0.86x / ~0.94x cuBLAS TF32, 3xtf32 ~2.0x / ~1.9x SGEMM, ieee ~0.92-0.95x, bf16 ~1.0x), the odd
# shape's tf32-rna a few percent higher (v43's A/B). ieee and bf16 left out (time).
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
