# Session 26, third device call: go1.sh's full run had jit-cold at 415.8 ms (3 runs), go2.sh's
# --compile-only 314.7 (default) and 424.7 (-fno-wgmma-tma-store). Which of the full run's
# conditions makes the difference: the JIT row of a timing run (cuBLAS loaded, a runtime made,
# inputs allocated) against --compile-only, with and without cuBLAS, twice each, interleaved.
# T seconds at most (default 300). carry ["carry/f.tar.xz"] as go1.sh.
T=${T:-300}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
S=$SECONDS
# first (this carry: 8b3bf61, the optional store map) gpu_test_gemm's quick set as
# compiled, with its new case (C's column unproven, TMA only, N = 75 and 76)
TILEC_GPU_QUICK=1 timeout 120 $B/bin/gpu_test_gemm > /tmp/gemm_q.log 2>&1; echo "gpu_test_gemm exit $? t=$((SECONDS-S))"
grep -E "unproven|FAIL" /tmp/gemm_q.log | head; tail -1 /tmp/gemm_q.log
A="--cfg=128x256x32w8g8 --modes=tf32-rna --archs=sm_90a --compile-runs=3"
for r in 1 2; do
  [ $((T - SECONDS + S)) -lt 70 ] && break
  timeout 30 $B/bin/bench_gemm --compile-only $A 2>&1 | grep -E 'jit-cold|^compile ' | sed "s/^/r$r compile-only: /"
  timeout 60 $B/bin/bench_gemm $A --shapes=1024 --target-ms=5 --warmup-ms=5 2>&1 | grep -E 'jit-cold|^compile ' | sed "s/^/r$r timing run: /"
  timeout 60 $B/bin/bench_gemm $A --shapes=1024 --target-ms=5 --warmup-ms=5 --no-cublas 2>&1 | grep -E 'jit-cold|^compile ' | sed "s/^/r$r timing run, no cuBLAS: /"
done
echo "t=$((SECONDS-S))"
# then tf32-rna with and without the launch's pre-rounding (TILEC_PREROUND=0: the kernel rounds A
# in shared memory and B in the consumers' registers), two interleaved rounds, tf32-rne beside
for r in 1 2; do for p in 0 ""; do
  [ $((T - SECONDS + S)) -lt 45 ] && break
  echo "== r$r TILEC_PREROUND=${p:-unset}"
  env ${p:+TILEC_PREROUND=$p} timeout 40 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --shapes=4096,8192 \
    --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
done; done
echo "t=$((SECONDS-S))"
