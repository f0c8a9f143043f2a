# Session 41 (NOT RUN: no machine came after the 16-bit pipeline; then none was lent): call 4, the mma.sync pipeline's f16/bf16 loops (99aabf4) on hardware. sm_80's bf16
# GEMM at 128x256x64 ran at 0.6 TFLOP/s in call 2's full run (11 KB of spills in the generic
# lowering since c36c98e, session 39; 59.3 in session 38's full run). First gpu_test_gemm's quick
# 16-bit cases (labelled ieee, with the f32 ieee ones), then the sm_80 bf16 GEMMs with cuBLAS in the
# process, old (01f27fb, the generic lowering) at 128x128x64 only (its 128x256 takes ~1.7 s a
# launch at 8192³).
# Predicted: bf16 sm_80 128x256 from 0.6 to 150-250 TFLOP/s, 128x128 from ~49 to 150-250.
. bench/device/env.sh   # run with CARRY=carry/b1.tar.xz
S=$SECONDS; R=$OUT
TILEC_GPU_QUICK=1 TILEC_TEST_PRECISION=ieee timeout 120 $B/bin/gpu_test_gemm > $R/gemm16.log 2>&1
echo "gemm exit $? $(grep -E 'f16|bf16' $R/gemm16.log | grep -c ': ok') 16-bit ok ($(grep '^sm_80' $R/gemm16.log | grep -E 'f16|bf16' | grep -c ': ok') sm_80); $(tail -1 $R/gemm16.log) t=$((SECONDS-S))"
grep -hE 'FAIL|BAD' $R/gemm16.log | head -5; gzip $R/gemm16.log
env LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH timeout 100 $OLD_B/bench_gemm --no-cublas --target-ms=25 --warmup-ms=15 --compile-runs=1 \
  --shapes=4096,8192,8191x8193x8190 --archs=sm_80 --modes=bf16 --cfg-bf16=128x128x64w8 2>&1 | grep -E '^ *tilec' | tr -s ' ' | sed 's/^/old: /'
echo "t=$((SECONDS-S))"
timeout 150 $B/bin/bench_gemm --target-ms=25 --warmup-ms=15 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 --archs=sm_80 \
  --modes=bf16 --cfg-bf16=128x256x64w8g8,128x128x64w8,128x128x32w4 > $R/bench16.log 2>&1
sed -n '/^shape /,$p' $R/bench16.log | cut -c1-150 | head -20; gzip $R/bench16.log
echo "t=$((SECONDS-S))"
