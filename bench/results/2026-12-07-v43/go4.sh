# Session 40, call 4 (what comes; too little device time was left for go3.sh's full run): today's
# build against cuBLAS in the same process, sm_90a only, no Triton: the target rows' kernels at
# 4096³, 8192³ and 8191x8193x8190. Predicted on an H100: as session 38's full run (tf32-rna
# ~0.86x / ~0.94x cuBLAS TF32, 3xtf32 ~2.0x / ~1.9x SGEMM, ieee ~0.92-0.95x, bf16 ~1.0x), the odd
# shape's tf32-rna a few percent higher (v43's A/B).
. bench/device/env.sh
S=$SECONDS; R=$OUT
timeout ${LIMIT:-400} $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 \
  --cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8 --shapes=4096,8192,8191x8193x8190 \
  --target-ms=30 --warmup-ms=20 --compile-runs=1 > $R/bench.log 2>&1; echo "exit $? t=$((SECONDS-S))"
sed -n '/^shape /,$p' $R/bench.log | cut -c1-130 | head -60
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
gzip $R/bench.log
