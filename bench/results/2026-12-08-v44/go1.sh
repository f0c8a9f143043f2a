# Session 41, call 1: the sm_80 cp.async + mma.sync pipeline (e33d739, 325c651: pass_mma,
# lower_mma_pipeline.c; tf32-trunc/rna/rne, 3xtf32) on hardware. First the tests that run it (gpu_test_gemm's quick tf32
# cases, both targets; gpu_test_random; gpu_test_strides, new in session 40, never run on a GPU),
# then old (01f27fb: the generic lowering, one shared buffer, no overlap) against new, two
# interleaved rounds, sm_80 tf32-rna / tf32-rne / tf32-trunc / 3xtf32 at 128x128 w8 and 128x256 w8 (new
# also 128x128 at 3 stages: two blocks an SM), no cuBLAS; then new once with cuBLAS TF32 for the
# ratio. bench_gemm prints each shape's modes in its own order (tilec's rows in the logs name them).
# Predicted: sm_80 tf32-rna 128x128 from ~38 (v43) to 120-200 TFLOP/s (a pipelined mma.sync GEMM
# reaches ~50-70% of the TF32 peak before Hopper); tf32-trunc above rna (no rounding in the
# fragment reads); 3xtf32 (128x128; 128x256 stays generic: its accumulators) from ~17 to 40-70;
# the sm_90a rows unchanged (wgmma takes their loops).
. bench/device/env.sh   # run with CARRY=carry/b1.tar.xz (the pack without the static builds, for the size limit)
S=$SECONDS; R=$OUT; LIMIT=${LIMIT:-590}
TILEC_GPU_QUICK=1 TILEC_TEST_PRECISION=tf32-rna,tf32-rne,tf32-trunc,3xtf32 timeout 200 $B/bin/gpu_test_gemm > $R/gemm.log 2>&1
echo "gemm exit $? $(grep -c ': ok' $R/gemm.log) ok ($(grep '^sm_80' $R/gemm.log | grep -c ': ok') sm_80); $(tail -1 $R/gemm.log) t=$((SECONDS-S))"
TILEC_RANDOM_N=100 TILEC_TEST_SEED=41600 timeout 90 $B/bin/gpu_test_random > $R/random.log 2>&1; echo "random exit $? $(tail -1 $R/random.log) t=$((SECONDS-S))"
timeout 40 $B/bin/gpu_test_strides > $R/strides.log 2>&1; echo "strides exit $? $(tail -1 $R/strides.log) t=$((SECONDS-S))"
grep -hE 'FAIL|BAD' $R/*.log | head -8
gzip $R/*.log
bg() {
  local v=$1; shift
  local cmd=("$B/bin/bench_gemm")
  [ "$v" = old ] && cmd=(env "LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH" "$OLD_B/bench_gemm")
  timeout 100 "${cmd[@]}" --target-ms=25 --warmup-ms=15 --compile-runs=1 --shapes=4096,8191x8193x8190 --archs=sm_80 \
    --modes=tf32-rna,tf32-rne,tf32-trunc,3xtf32 "$@" 2>&1 | grep -E '^\[|^ *tilec' | awk '/^\[/{printf "\n   %s:", $2; next} {printf " %s %s %s", $2, $4, $7}'
  echo
}
for r in 1 2; do
  for v in old new; do
    left=$((LIMIT-(SECONDS-S))); [ $left -lt 80 ] && break 2
    extra=""; [ $v = new ] && extra=",128x128x32w8s3"
    echo "$v $r (mode tile TFLOP/s):$(bg $v --no-cublas --cfg=128x128x32w8,128x256x32w8$extra)  t=$((SECONDS-S))"
  done
done
left=$((LIMIT-(SECONDS-S))); [ $left -gt 70 ] && $B/bin/bench_gemm --target-ms=25 --warmup-ms=15 --compile-runs=1 \
  --shapes=4096,8191x8193x8190 --archs=sm_80 --modes=tf32-rna,3xtf32 --cfg=128x128x32w8,128x128x32w8s3 > $R/cublas.log 2>&1
sed -n '/^shape /,$p' $R/cublas.log | cut -c1-150 | head -20; gzip $R/cublas.log
echo "t=$((SECONDS-S))"
