# NOT RUN (session 18: no device machine was lent): for a session with a GPU, after v20's
# notrun_go4.sh and notrun_go5.sh (about 6 minutes; notrun_go2.sh is the next call).
# 1. This session's default change: the swapped consumers' B fragment offsets computed once before
#    the K loop (lower_wgmma_swapped.c swapped_frags): the consumer K loops 16-24 integer
#    instructions shorter (128x256 tf32-rne 103 -> 79, tf32-rna 439 -> 415, 128x128 77 -> 61), no
#    new spills: gpu_test_gemm with the defaults.
# 2. -frole-functions (experimental, off): the persistent pipeline's producers lowered, optimized and
#    emitted as a function in an LLVM module of its own, on a thread beside the rest, its PTX then
#    spliced into the kernel (compiler/ptx_splice.c); it applies to kernels with copies of their own
#    (not -fwgmma-tma-only). Its consumer K loops now have the default's counts (or one fewer), the
#    producers' TMA loops the same: its gpu_test_gemm, then its speed against the default's on the
#    full kernel, cuBLAS in each process.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v21/notrun_go1.sh
. bench/device/env.sh
S=$SECONDS
TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > /tmp/def.log 2>&1
echo "default gpu_test_gemm exit $?"; tail -1 /tmp/def.log; grep -B2 FAIL /tmp/def.log | head
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-frole-functions timeout 150 $B/bin/gpu_test_gemm > /tmp/rf.log 2>&1
echo "role-functions gpu_test_gemm exit $?"; tail -1 /tmp/rf.log; grep -B2 FAIL /tmp/rf.log | head
# the full kernel (-fno-wgmma-tma-only: -frole-functions applies to it alone), cuBLAS in each process
for c in --copt=-frole-functions ""; do
  echo "== full kernel ${c:-default}"
  timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=-fno-wgmma-tma-only $c 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
done
echo "t=$((SECONDS-S))"
