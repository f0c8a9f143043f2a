# Session 38, call 6 (any GPU): 3xtf32's short path with hic as big before its mask (no copy of
# big at the join: 16 moves a stage less in the consumers, SASS K loop 556 -> 540) against the
# masked kernel (-fno-wgmma-unmasked-rounding: session 37's), three interleaved rounds; then
# gpu_test_gemm's 3xtf32 quick cases. Predicted: +1-2% on the unmasked figures of inline1/2.sh.
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | grep -E '^ *tilec' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s  ", $(i-1)}'; }
for r in 1 2 3; do
  echo "masked $r: $(bg --copt=-fno-wgmma-unmasked-rounding)"
  echo "default $r: $(bg)"
done
echo "== gpu_test_gemm 3xtf32 quick t=$((SECONDS-S))"
TILEC_GPU_QUICK=1 TILEC_TEST_PRECISION=3xtf32 timeout 150 $B/bin/gpu_test_gemm > $R/gemm.log 2>&1; echo "exit $?"
grep -c ': ok' $R/gemm.log; grep -E 'FAIL|BAD' $R/gemm.log | head -5; tail -1 $R/gemm.log
gzip $R/gemm.log; echo "t=$((SECONDS-S))"
# output (H100 80GB HBM3, build 9f1f134; TFLOP/s at 4096³, 8192³, 8191x8193x8190):
# masked 1: 104.0  99.2  93.1
# default 1: 105.1  101.2  96.1
# masked 2: 101.4  96.6  94.0
# default 2: 106.9  99.6  95.8
# masked 3: 106.5  95.7  93.9
# default 3: 103.6  98.4  95.3
# gpu_test_gemm 3xtf32 quick: 123 ok, PASS (run3/gemm.log.gz)
