# Session 39 (any GPU): tf32-rna with B rounded in the consumers' registers (-fno-wgmma-preround-b:
# only A pre-rounded by a copy) against the default (A and B pre-rounded), now that the rounding in
# registers is an add where only the tensor cores read the result (session 38's unmasked rounding;
# session 27 measured the option 2-17% slower with the masked, guarded rounding). Three interleaved
# rounds; then gpu_test_gemm's tf32-rna quick cases with the option.
# Predicted: +3-6% at 4096³ (half the copies' traffic, ~9% of the time there, against ~70 more
# instructions a stage in the consumers), within noise at 8192³.
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | grep -E '^ *(tilec|cublas +tf32)' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s  ", $(i-1)}'; }
for r in 1 2 3; do
  echo "default $r: $(bg)"
  echo "regB $r: $(bg --copt=-fno-wgmma-preround-b)"
done
echo "== gpu_test_gemm tf32-rna quick, -fno-wgmma-preround-b t=$((SECONDS-S))"
TILEC_GPU_QUICK=1 TILEC_TEST_PRECISION=tf32-rna TILEC_TEST_COPT=-fno-wgmma-preround-b timeout 150 $B/bin/gpu_test_gemm > $R/gemm.log 2>&1; echo "exit $?"
grep -c ': ok' $R/gemm.log; grep -E 'FAIL|BAD' $R/gemm.log | head -5; tail -1 $R/gemm.log
gzip $R/gemm.log; echo "t=$((SECONDS-S))"
# output (H100 80GB HBM3, build 239f99d; TFLOP/s, cuBLAS TF32 then tilec, at 4096³, 8192³, 8191x8193x8190):
# default 1: 356.7  312.3  348.9  332.0  135.3  350.2
# regB 1: 389.9  301.9  368.1  292.4  138.8  281.4
# default 2: 393.0  301.5  382.2  319.8  138.6  329.8
# regB 2: 353.1  303.8  389.8  283.0  138.6  292.0
# default 3: 374.1  304.8  345.5  335.3  137.5  329.8
# regB 3: 377.5  292.7  393.3  280.5  137.5  283.6
# gpu_test_gemm tf32-rna quick with -fno-wgmma-preround-b: 123 ok, PASS (run2/gemm.log.gz)
