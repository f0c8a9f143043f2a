# session 15: the second device call, after notrun_go1.sh (same carry; it says what each item checks):
# gpu_test_gemm non-persistent, with the experimental -fwgmma-tma-only (the kernel without copies of
# its own: its tests' views that no map describes are staged whatever the reuse), and with
# TILEC_JIT_TMA_ONLY=1 (the JIT compiles with it and loads the full kernel for a launch it cannot serve).
. bench/device/env.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
TILEC_TEST_COPT=-fno-persistent run t_gemm_n 200 $B/bin/gpu_test_gemm
TILEC_TEST_COPT=-fwgmma-tma-only run t_gemm_tma_only 200 $B/bin/gpu_test_gemm
TILEC_JIT_TMA_ONLY=1 run t_gemm_jit_tma_only 200 $B/bin/gpu_test_gemm
echo "t=$((SECONDS-S))"
