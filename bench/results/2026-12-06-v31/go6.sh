# Session 28, sixth device call (the session's last ~240 s): gpu_test_random through the JIT
# (TILEC_TEST_LOAD=source: tilecModuleLoadSource's defaults, TMA-only GEMM loops, C by TMA) on
# fresh seeds for 80 s. carry ["carry/g.tar.xz"].
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/g.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p $OUT
TILEC_TEST_LOAD=source TILEC_TEST_SEED=$(( $(date +%s) * 17 )) TILEC_RANDOM_N=400 timeout 80 $B/bin/gpu_test_random > $OUT/random_jit.log 2>&1
echo "random_jit exit $? t=$((SECONDS-S))"
grep -v "refused for a limit" $OUT/random_jit.log | tail -6
grep -c "refused for a limit" $OUT/random_jit.log
