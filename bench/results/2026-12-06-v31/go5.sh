# Session 28, fifth device call (build of gen_kernel_gemm and lower_order's dedupe): gpu_test_random
# on fresh seeds, a third of them GEMM loops in the wgmma pipelines' tiles with random epilogues;
# then gpu_test_ops and gpu_test_persistent once more on this build. T seconds (default 330).
# carry ["carry/g.tar.xz"].
T=${T:-330}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/g.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD TILEC_FIXTURES=$PWD/tests/fixtures PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p $OUT
run() { # name seconds command...
  local n=$1 t=$2; shift 2
  timeout $t "$@" > $OUT/$n.log 2>&1; echo "$n exit $? t=$((SECONDS-S)): $(tail -1 $OUT/$n.log)"
}
TILEC_TEST_SEED=$(( $(date +%s) * 13 )) TILEC_RANDOM_N=900 run random 230 $B/bin/gpu_test_random
grep -m1 "^seeds" $OUT/random.log; grep "kernels ran" $OUT/random.log; grep "kernels, " $OUT/random.log | tail -1
grep -c "refused for a limit" $OUT/random.log; grep -c "allowed for order" $OUT/random.log
run ops 40 $B/bin/gpu_test_ops
run persistent 40 $B/bin/gpu_test_persistent
grep -h -m5 "^FAIL" $OUT/*.log
echo "t=$((SECONDS-S))"
