# session 16, device call 1: every GPU test of sessions 14-15's work (never run on a GPU: predicated
# checked stores, 200-register consumers, the $rounded entry point, persistent tests, parallel autotune
# loads, -fwgmma-tma-only, TILEC_JIT_TMA_ONLY), in order of importance, within one call's time.
. bench/device/env.sh
S=$SECONDS; END=570; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; local left=$((END - SECONDS + S)); [ $left -lt 30 ] && { echo "$name SKIPPED (no time)"; return; }
  [ $lim -gt $left ] && lim=$left
  ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $?" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_preround 100 $B/bin/gpu_test_preround
run t_gemm 200 $B/bin/gpu_test_gemm
for t in persistent ops faults autotune accuracy; do run t_$t 60 $B/bin/gpu_test_$t; done
TILEC_TEST_COPT=-fwgmma-tma-only run t_gemm_tma_only 150 $B/bin/gpu_test_gemm
TILEC_JIT_TMA_ONLY=1 run t_gemm_jit_tma_only 150 $B/bin/gpu_test_gemm
TILEC_TEST_COPT=-fno-persistent run t_gemm_n 150 $B/bin/gpu_test_gemm
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=3 run memcheck 100 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm
tar -C $L -cJf $OUT/logs.tar.xz . && ls -la $OUT
echo "t=$((SECONDS-S))"
