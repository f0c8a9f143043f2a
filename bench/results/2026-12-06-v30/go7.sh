# Session 27, seventh device call: 3xtf32's consumers one stage ahead (an uncommitted experiment,
# run7/experiment.diff): TILEC_EXP_X3PIPE=1 issues a stage's wgmmas, then waits for the next
# stage and loads and splits its B fragments while they run, then waits for them and adds the
# part sums; TILEC_EXP_X3PROD=N gives the producer warpgroup N registers (default 112; the
# consumers get the rest: 56 -> 224). The benchmark's error column checks each result against
# fp64. Interleaved rounds, cuBLAS SGEMM in each process. T seconds (default 400).
# carry ["carry/e.tar.xz"].
T=${T:-400}
B=/tmp/e; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/e.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run() { echo "== r$r $1"; env $2 timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --target-ms=60 --warmup-ms=20 \
  --compile-runs=1 --cfg=128x128x32w8 --shapes=4096,8192 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '; }
for r in 1 2 3; do
  [ $((T - SECONDS + S)) -lt 100 ] && break
  run default X=1
  run "one stage ahead, producers 56" "TILEC_EXP_X3PIPE=1 TILEC_EXP_X3PROD=56"
  run "producers 56 alone" TILEC_EXP_X3PROD=56
done
echo "t=$((SECONDS-S))"
