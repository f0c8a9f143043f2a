# session 13 call 3 (barrier.sync for the roles' meeting): synccheck on forced persistence with 2 blocks, then the
# GEMM and pre-rounding tests with the defaults
. carry/dev.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=2 TILEC_TEST_COPT=-fpersistent run synccheck 200 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm
grep -c "Barrier error" $OUT/synccheck.log
TILEC_PERSIST_BLOCKS=2 run synccheck_pre 100 compute-sanitizer --tool synccheck $B/bin/gpu_test_preround
run t_gemm 200 $B/bin/gpu_test_gemm
run t_preround 100 $B/bin/gpu_test_preround
