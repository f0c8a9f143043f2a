# Session 27, sixth device call: every GPU test of this session's build (a67473a + b99a627, the
# same code) on the GPU, the defaults (the JIT's kernels where a test loads source): the short
# ones first, then gpu_test_gemm's full set (not the quick one) with what time is left.
# T seconds at most (default 560). carry ["carry/f.tar.xz"].
T=${T:-560}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for t in preround ops persistent faults round_all autotune accuracy; do
  left=$((T - SECONDS + S - 200)); [ $left -lt 20 ] && { echo "gpu_test_$t: not run (time)"; continue; }
  lim=$([ $left -lt 120 ] && echo $left || echo 120)
  timeout $lim $B/bin/gpu_test_$t > $OUT/$t.log 2>&1; rc=$?
  echo "gpu_test_$t exit $rc t=$((SECONDS-S)): $(tail -1 $OUT/$t.log)"; grep -m5 FAIL $OUT/$t.log
done
left=$((T - SECONDS + S - 5))
timeout $left $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; rc=$?
echo "gpu_test_gemm (full) exit $rc t=$((SECONDS-S)): $(tail -1 $OUT/gemm.log) ($(grep -c ': ok' $OUT/gemm.log) ok lines)"; grep -m10 FAIL $OUT/gemm.log
