# Session 38, call 1 (any GPU). 3xtf32's consumers: (a) the split's short-path test by the sum of
# the rests x - big (the default from 8c48ca2; the same bits) against one compare an element
# (-fno-wgmma-x3-rest-test); (b) the RNA rounding's mask left to the tensor cores for copies only
# they read (default; -fno-wgmma-unmasked-rounding: masked); old = both off (the default before);
# (c) -fwgmma-x3-sum2 (experimental): the part sums over two steps, one RN add every second step.
# Predicted: (a) +0-2% (the same instruction count, a shorter chain before the branch), (b) +1-2%
# (16 of ~265 instructions a stage in the consumers, 32 a producer batch), (c) +2-4% (64 adds off
# every second drain). Three interleaved rounds at 4096³, 8192³ and the odd shape, one process a
# row, cuBLAS SGEMM in each; tf32-rna at small K (rounded in the kernel: no pre-rounding there),
# unmasked against masked, two rounds; then gpu_test_gemm's 3xtf32 and tf32-rna cases and
# gpu_test_accuracy (K 8192) with and without sum2.
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@"; }
for round in 1 2 3; do
  for v in "def" "mask --copt=-fno-wgmma-unmasked-rounding" "old --copt=-fno-wgmma-unmasked-rounding --copt=-fno-wgmma-x3-rest-test" "sum2 --copt=-fwgmma-x3-sum2"; do
    set -- $v; n=$1; shift
    echo "== $n round $round t=$((SECONDS-S))"
    bg "$@" > $R/$n$round.log 2>&1
    grep -E '^ *(tilec|cublas sgemm)' $R/$n$round.log | tr -s ' ' | cut -c1-110
  done
done
sk() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096x4096x64 "$@"; }
for round in 1 2; do
  for v in "def" "mask --copt=-fno-wgmma-unmasked-rounding"; do
    set -- $v; n=$1; shift
    echo "== small K $n round $round t=$((SECONDS-S))"
    sk "$@" > $R/k$n$round.log 2>&1
    grep -E '^ *(tilec|cublas tf32)' $R/k$n$round.log | tr -s ' ' | cut -c1-110
  done
done
for o in "" -fwgmma-x3-sum2; do
  echo "== gpu_test_gemm 3xtf32 (and tf32-rna without sum2) quick '$o' t=$((SECONDS-S))"
  p=3xtf32; [ -z "$o" ] && p=3xtf32,tf32-rna
  TILEC_GPU_QUICK=1 TILEC_TEST_PRECISION=$p TILEC_TEST_COPT="$o" timeout 200 $B/bin/gpu_test_gemm > $R/gemm$o.log 2>&1; echo "exit $?"
  grep -c ': ok' $R/gemm$o.log; grep -E 'FAIL|BAD' $R/gemm$o.log | head -5; tail -1 $R/gemm$o.log
  echo "== gpu_test_accuracy '$o' t=$((SECONDS-S))"
  TILEC_TEST_COPT="$o" timeout 90 $B/bin/gpu_test_accuracy > $R/acc$o.log 2>&1; echo "exit $?"
  grep -E '3xtf32|ieee |FAIL|PASS' $R/acc$o.log | head -12
done
tar -C $R -czf $R/logs.tgz $(cd $R && ls *.log) && rm -f $R/*.log
echo "t=$((SECONDS-S))"
