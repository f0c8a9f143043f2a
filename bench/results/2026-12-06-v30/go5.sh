# Session 27, fifth device call: what 3xtf32's producers' per-stage barrier costs (go4.sh: the
# producer warps wait at `bar.sync 2, 128` a third of their samples; the consumers wait on full[]
# ~15% of theirs). An experiment build (go2.sh's plus TILEC_EXP_NOBAR=1: no barrier, the spare
# tile never written: wrong only where a stage's big copy holds Inf or NaN, which these inputs do
# not; run5/experiment.diff). Interleaved rounds, cuBLAS SGEMM in each process.
# T seconds at most (default 400). carry ["carry/e.tar.xz"].
T=${T:-400}
B=/tmp/e; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/e.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
run() { echo "== r$r $1 $2"; env $3 timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --target-ms=60 --warmup-ms=20 \
  --compile-runs=1 --cfg=$1 --shapes=$2 2>&1 | grep -E '^ *(tilec|cublas sgemm)' | tr -s ' '; }
for r in 1 2 3; do
  [ $((T - SECONDS + S)) -lt 90 ] && break
  run 128x128x32w8 4096,8192 X=1
  run 128x128x32w8 4096,8192 TILEC_EXP_NOBAR=1
done
for r in 1; do
  [ $((T - SECONDS + S)) -lt 60 ] && break
  run 128x256x32w8g8 4096,8192 X=1
  run 128x256x32w8g8 4096,8192 TILEC_EXP_NOBAR=1
done
echo "t=$((SECONDS-S))"
