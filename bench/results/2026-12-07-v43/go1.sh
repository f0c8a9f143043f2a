# Session 40, call 1 (gpu_test_large, new; then session 39's notrun_go5.sh, which no device ran): session 39's address changes (c36c98e, 7edbc31: the generic
# shared-memory tiles from one base plus constants; the stores' rows and columns as the first one
# plus constants) on the GPU: the tests that run generic and pipelined kernels, then old (239f99d,
# the session's start) against new, two interleaved rounds: sm_80 (the mma.sync lowering: K loops
# 70-100 SASS instructions shorter, fewer spills) and sm_90a (K loops unchanged, the epilogue's
# checked stores shorter; the odd shape takes them on every tile).
# Predicted: sm_80 the same or a few percent faster; sm_90a within noise.
. bench/device/env.sh
S=$SECONDS; R=$OUT; LIMIT=${LIMIT:-590}   # LIMIT: the call's seconds (less where less device time is left)
echo "== gpu_test_ops, gpu_test_random (150), gpu_test_gemm quick t=$((SECONDS-S))"
timeout 60 $B/bin/gpu_test_ops > $R/ops.log 2>&1; echo "ops exit $? $(tail -1 $R/ops.log)"
# session 40's new test: views past 2^31 elements and 4 GiB (~26 GiB of device memory)
timeout 150 $B/bin/gpu_test_large > $R/large.log 2>&1; echo "large exit $? t=$((SECONDS-S))"; grep -v '^device' $R/large.log | cut -c1-150
TILEC_RANDOM_N=150 TILEC_TEST_SEED=39900 timeout 120 $B/bin/gpu_test_random > $R/random.log 2>&1; echo "random exit $? $(tail -1 $R/random.log)"
TILEC_GPU_QUICK=1 timeout $((LIMIT/2)) $B/bin/gpu_test_gemm > $R/gemm.log 2>&1; echo "gemm exit $? $(grep -c ': ok' $R/gemm.log) ok; $(tail -1 $R/gemm.log)"
grep -E 'FAIL|BAD' $R/*.log | head -5
gzip $R/*.log
bg() { timeout 80 "$@" --target-ms=25 --warmup-ms=15 --compile-runs=1 --shapes=4096,8191x8193x8190 2>&1 | grep -E '^ *tilec' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s  ", $(i-1)}'; }
old() { env LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH $OLD_B/bench_gemm --no-cublas "$@"; }
new() { $B/bin/bench_gemm --no-cublas "$@"; }
for r in 1 2; do
  for v in old new; do
    left=$((LIMIT-(SECONDS-S))); [ $left -lt 60 ] && break 2
    echo "$v $r sm_80 rna,rne,3x,ieee 128x128: $(bg $v --archs=sm_80 --modes=tf32-rna,tf32-rne,3xtf32,ieee --cfg=128x128x32w8)"
    echo "$v $r sm_90a rna,rne 128x256 / 3x,ieee 128x128: $(bg $v --archs=sm_90a --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8) / $(bg $v --archs=sm_90a --modes=3xtf32,ieee --cfg=128x128x32w8)"
  done
done
echo "t=$((SECONDS-S))"
# output (H100 80GB HBM3, build c8e2443; logs in run1/):
# ops exit 0 PASS: 0 failing check(s)
# large exit 0 t=29: 22 cases ran, 0 skipped, 0 failed (dense 8 GiB A and strided A/B/C, every
#   configuration; worst |err|/sum|ab| tf32 3.4e-5, 3xtf32 4.6e-8, ieee 1.6e-7)
# random exit 124: stopped by its 120 s limit after ~120 of 150 kernels (1 s a kernel on this
#   machine: both targets compiled, ptxas), none failing
# gemm exit 0 722 ok; PASS: 0 failing case(s)
# the timing rows came back empty: `timeout` cannot run the shell functions old/new (go2.sh)
