# Session 28, second device call (build 2e4735f + the random GEMM configurations): the new
# gpu_test_random (random kernels against the CPU executor, fresh seeds) and gpu_test_gemm's
# random configurations on the device, then the GPU tests that the memory-order barriers could
# touch (ops, the gemm quick set, persistent, preround, accuracy). T seconds (default 480).
# carry ["carry/f.tar.xz"].
T=${T:-480}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD TILEC_FIXTURES=$PWD/tests/fixtures PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p $OUT
run() { # name seconds command...
  local n=$1 t=$2; shift 2
  timeout $t "$@" > $OUT/$n.log 2>&1; echo "$n exit $? t=$((SECONDS-S)): $(tail -1 $OUT/$n.log)"
}
TILEC_TEST_SEED=$(date +%s) TILEC_RANDOM_N=1500 run random 170 $B/bin/gpu_test_random
grep -m3 "^seeds\|kernels ran" $OUT/random.log
TILEC_TEST_SEED=$(date +%s) TILEC_TEST_RANDOM_CONFIGS=250 run gemm_random 100 $B/bin/gpu_test_gemm
grep -c "^random config" $OUT/gemm_random.log; grep -c "refused" $OUT/gemm_random.log; grep -m5 -B2 FAIL $OUT/gemm_random.log
run ops 60 $B/bin/gpu_test_ops
TILEC_GPU_QUICK=1 run gemm_quick 120 $B/bin/gpu_test_gemm
run persistent 60 $B/bin/gpu_test_persistent
run preround 60 $B/bin/gpu_test_preround
run accuracy 60 $B/bin/gpu_test_accuracy
grep -h -m5 "^FAIL" $OUT/*.log
echo "t=$((SECONDS-S))"
