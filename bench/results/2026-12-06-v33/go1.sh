# Session 30, first device call (build fab8672 = HEAD's code, carry/p6.tar.xz): session 29's unrun
# notrun_go6.sh, widened: the final form of C's checked stores by rows on a GPU. bf16 and tf32-rne
# at 8192³ and the odd shape (two processes, cuBLAS in each), the JIT's tf32-rna odd row, then
# gpu_test_gemm's quick set compiled and through the JIT, the other GPU tests, random kernels.
# carry ["carry/p6.tar.xz"].
B=/tmp/p6; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/p6.tar.xz
export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
t() { echo "== $* t=$((SECONDS-S))"; }
for r in 1 2; do
  t "r$r"
  timeout 70 $B/bin/bench_gemm --archs=sm_90a --modes=bf16,tf32-rne,tf32-rna --cfg=128x256x32w8g8 --cfg-bf16=128x256x64w8g8 \
    --target-ms=40 --warmup-ms=20 --compile-runs=1 --shapes=8192,8191x8193x8190 2>&1 | tee $OUT/bench_r$r.log | grep -E '^ *(tilec|cublas (tf32|bf16))' | tr -s ' '
done
t gemm; TILEC_GPU_QUICK=1 timeout 120 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head
t gemm source; TILEC_TEST_LOAD=source TILEC_GPU_QUICK=1 timeout 120 $B/bin/gpu_test_gemm > $OUT/gemm_src.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm_src.log; grep -E 'FAIL|failing' $OUT/gemm_src.log | head
for x in persistent ops preround; do
  t $x; TILEC_GPU_QUICK=1 timeout 60 $B/bin/gpu_test_$x > $OUT/$x.log 2>&1; echo "rc=$?"; grep -E 'FAIL|PASS|failing' $OUT/$x.log | tail -3
done
t random; TILEC_TEST_SEED=30001 TILEC_RANDOM_N=2000 timeout 45 $B/bin/gpu_test_random > $OUT/random.log 2>&1; echo "rc=$?"; grep -ciE 'fail|mismatch' $OUT/random.log; grep -E 'kernels,' $OUT/random.log | tail -1
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
