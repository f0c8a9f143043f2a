# Session 28, third device call (build of the runnable generator's fma / batched view / two-value
# loops, and the dot fix): gpu_test_random on fresh seeds (the kept kernels first), gpu_test_gemm's
# random configurations, gpu_test_ops once more. T seconds (default 420). carry ["carry/g.tar.xz"].
T=${T:-420}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/g.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD TILEC_FIXTURES=$PWD/tests/fixtures PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p $OUT
run() { # name seconds command...
  local n=$1 t=$2; shift 2
  timeout $t "$@" > $OUT/$n.log 2>&1; echo "$n exit $? t=$((SECONDS-S)): $(tail -1 $OUT/$n.log)"
}
TILEC_TEST_SEED=$(( $(date +%s) * 2 )) TILEC_RANDOM_N=1200 run random 230 $B/bin/gpu_test_random
grep -m3 "tir (seed\|^seeds\|kernels ran" $OUT/random.log; grep -c "allowed for order" $OUT/random.log
TILEC_TEST_SEED=$(date +%s) TILEC_TEST_RANDOM_CONFIGS=400 run gemm_random 130 $B/bin/gpu_test_gemm
grep -c "^random config" $OUT/gemm_random.log; grep -c "refused" $OUT/gemm_random.log; grep -m5 -B2 FAIL $OUT/gemm_random.log
run ops 40 $B/bin/gpu_test_ops
grep -h -m5 "^FAIL" $OUT/*.log
echo "t=$((SECONDS-S))"
