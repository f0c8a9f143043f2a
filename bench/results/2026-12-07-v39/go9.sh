# Session 36, call 9: the K-major ieee transposition (fc42670) through the JIT: gpu_test_gemm's quick
# set with TILEC_TEST_LOAD=source (tilecModuleLoadSource's defaults: TMA-only GEMM loops, C by TMA
# where it applies), then random kernels (GEMM loops with random epilogues among them) through the
# JIT for what time is left. Needs carry at a66ce2d or later.
. bench/device/env.sh
S=$SECONDS
echo "== gemm jit t=$((SECONDS-S))"
TILEC_TEST_LOAD=source TILEC_GPU_QUICK=1 timeout 240 $B/bin/gpu_test_gemm > $OUT/gemm_jit.log 2>&1
echo "rc=$?"; grep -c ': ok' $OUT/gemm_jit.log; grep -E 'FAIL|failing|timed out' $OUT/gemm_jit.log | head -5
grep -E 'ieee .*f32.*K-major' $OUT/gemm_jit.log | awk '{print $NF}' | sort | uniq -c
echo "== random jit t=$((SECONDS-S))"
TILEC_TEST_LOAD=source TILEC_TEST_SEED=$(( $(date +%s) * 17 )) TILEC_RANDOM_N=400 timeout 90 $B/bin/gpu_test_random > $OUT/random_jit.log 2>&1
echo "rc=$? (124: the time limit)"; grep -cE ': ok|ok$' $OUT/random_jit.log; grep -E 'FAIL|mismatch' $OUT/random_jit.log | head -5
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
