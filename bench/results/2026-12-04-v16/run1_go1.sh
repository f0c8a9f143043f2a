# session 13 call 1: GPU tests on the working tree (HEAD's refactors, -disable-lsr, -fpersistent), then a short timing
. carry/dev.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_preround 100 $B/bin/gpu_test_preround
run t_gemm 200 $B/bin/gpu_test_gemm
TILEC_TEST_COPT=-fpersistent run t_gemm_p 200 $B/bin/gpu_test_gemm
TILEC_PERSIST_BLOCKS=3 TILEC_TEST_COPT=-fpersistent run t_gemm_p3 200 $B/bin/gpu_test_gemm
