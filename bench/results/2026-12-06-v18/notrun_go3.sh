# session 15: the third device call, after notrun_go1.sh (same carry; it says what each item checks):
# the autotuner, accuracy, memcheck.
. bench/device/env.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
for t in autotune accuracy; do run t_$t 120 $B/bin/gpu_test_$t; done
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=3 run memcheck 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm
echo "t=$((SECONDS-S))"
