# Session 27, second device call: why rounding B in the consumers' registers costs tf32-rna's
# A-only pre-rounding (-fno-wgmma-preround-b) 10-25% (go1.sh). An experiment build (cc8edcf plus
# two environment switches, not committed): TILEC_EXP_RNA=1 rounds B's fragments branch-free in
# integers ((u + 0x1000) & ~0x1FFF, NaNs kept by a select), TILEC_EXP_NOEARLY=1 turns off
# the k-overlap's early fragment loads. Interleaved rounds, cuBLAS in each process.
# T seconds at most (default 400). carry ["carry/e.tar.xz"].
T=${T:-400}
B=/tmp/e; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/e.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
A="--archs=sm_90a --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --modes=tf32-rna --shapes=4096,8192"
run() { echo "== r$r $1"; shift; env "$@" timeout 45 $B/bin/bench_gemm $A $X 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '; }
for r in 1 2; do
  [ $((T - SECONDS + S)) -lt 80 ] && break
  X=; run "default (A and B pre-rounded)" X=1
  X=--copt=-fno-wgmma-preround-b
  run "A alone, branchy (cc8edcf)" X=1
  run "A alone, branch-free" TILEC_EXP_RNA=1
  run "A alone, no early loads" TILEC_EXP_NOEARLY=1
  run "A alone, branch-free, no early loads" TILEC_EXP_RNA=1 TILEC_EXP_NOEARLY=1
  X=; run "no pre-rounding (own entry), branchy" TILEC_PREROUND=0
  run "no pre-rounding (own entry), branch-free" TILEC_PREROUND=0 TILEC_EXP_RNA=1
done
echo "t=$((SECONDS-S))"
