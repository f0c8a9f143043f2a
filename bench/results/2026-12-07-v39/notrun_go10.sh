# Session 36, not run (the device refused: too little of the budget left to start a machine): the final build (95ffb46: the transposition only with whole panels and the
# roles on; gpu_test_gemm's new ieee K-major configurations: the old path, BN 16, roles off, one
# producer warpgroup) on hardware: gpu_test_gemm's quick set.
. bench/device/env.sh
S=$SECONDS
TILEC_GPU_QUICK=1 timeout 200 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1
echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing|timed out' $OUT/gemm.log | head -5
grep -E 'ieee .*f32.*K-major' $OUT/gemm.log | awk '{print $NF}' | sort | uniq -c
gzip $OUT/gemm.log
echo "t=$((SECONDS-S))"
