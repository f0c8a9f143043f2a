# Session 27, eighth device call: the -O0 fix (b8dd04f: every wgmma group waited for inside its
# own asm statement at -O0) on the GPU: gpu_test_gemm's quick set compiled at -O0 (a review found
# 239 of its cases wrong on the interpreter before the fix), then at -O0 -fno-wgmma-serial (the
# old -O0 PTX) for comparison, each bounded. T seconds (default 400). carry ["carry/f.tar.xz"].
T=${T:-400}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
mkdir -p $OUT
nvidia-smi --query-gpu=name --format=csv,noheader
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-O0 timeout $((T - 150)) $B/bin/gpu_test_gemm > $OUT/gemm_O0.log 2>&1
echo "gpu_test_gemm -O0 exit $? t=$((SECONDS-S)): $(tail -1 $OUT/gemm_O0.log)"; grep -m5 FAIL $OUT/gemm_O0.log
left=$((T - SECONDS + S - 10)); [ $left -gt 30 ] && {
TILEC_GPU_QUICK=1 TILEC_TEST_COPT="-O0 -fno-wgmma-serial" timeout $left $B/bin/gpu_test_gemm > $OUT/gemm_O0_old.log 2>&1
echo "gpu_test_gemm -O0 -fno-wgmma-serial exit $? t=$((SECONDS-S)): $(tail -1 $OUT/gemm_O0_old.log) ($(grep -c FAIL $OUT/gemm_O0_old.log) FAIL lines)"; grep -m3 FAIL $OUT/gemm_O0_old.log; }
