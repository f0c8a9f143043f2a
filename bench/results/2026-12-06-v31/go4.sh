# Session 28, fourth device call: go3 again with progress lines (go3's runs stopped at their time
# limits, not at a failure), then the random kernels compiled at -O1 and -O0.
# T seconds (default 400). carry ["carry/g.tar.xz"].
T=${T:-400}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/g.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD TILEC_FIXTURES=$PWD/tests/fixtures PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p $OUT
run() { # name seconds command...
  local n=$1 t=$2; shift 2
  timeout $t "$@" > $OUT/$n.log 2>&1; echo "$n exit $? t=$((SECONDS-S)): $(tail -1 $OUT/$n.log)"
}
TILEC_TEST_SEED=$(( $(date +%s) * 3 )) TILEC_RANDOM_N=700 run random 180 $B/bin/gpu_test_random
grep -m1 "^seeds" $OUT/random.log; grep "kernels ran" $OUT/random.log; grep -c "allowed for order" $OUT/random.log
TILEC_TEST_SEED=$(( $(date +%s) * 5 )) TILEC_TEST_RANDOM_CONFIGS=220 run gemm_random 110 $B/bin/gpu_test_gemm
grep -c "^random config" $OUT/gemm_random.log; grep -c "refused" $OUT/gemm_random.log; grep -m5 -B2 FAIL $OUT/gemm_random.log
TILEC_TEST_COPT=-O1 TILEC_TEST_SEED=$(( $(date +%s) * 7 )) TILEC_RANDOM_N=100 run random_O1 40 $B/bin/gpu_test_random
TILEC_TEST_COPT=-O0 TILEC_TEST_SEED=$(( $(date +%s) * 11 )) TILEC_RANDOM_N=100 run random_O0 40 $B/bin/gpu_test_random
grep -h -m5 "^FAIL" $OUT/*.log
echo "t=$((SECONDS-S))"
