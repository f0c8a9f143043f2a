# session 13 call 2: GPU tests with persistent pipelines by default, the old path (-fno-persistent), forced
# persistence everywhere with few blocks, sanitizers on persistent launches
. carry/dev.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_preround 100 $B/bin/gpu_test_preround
TILEC_PERSIST_BLOCKS=5 run t_preround_b5 100 $B/bin/gpu_test_preround
run t_gemm 200 $B/bin/gpu_test_gemm
TILEC_TEST_COPT=-fno-persistent run t_gemm_n 200 $B/bin/gpu_test_gemm
TILEC_PERSIST_BLOCKS=7 TILEC_TEST_COPT=-fpersistent run t_gemm_p7 200 $B/bin/gpu_test_gemm
for t in accuracy ops autotune faults round_all; do run t_$t 120 $B/bin/gpu_test_$t; done
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=2 TILEC_TEST_COPT=-fpersistent run racecheck 150 compute-sanitizer --tool racecheck $B/bin/gpu_test_gemm
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=2 TILEC_TEST_COPT=-fpersistent run synccheck 150 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=3 run memcheck 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm
