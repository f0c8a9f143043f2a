# NOT RUN (session 18: no device machine was lent): for a session with a GPU, after v20's
# notrun_go4.sh and notrun_go5.sh (about 7 minutes).
# -frole-functions (experimental, off): the persistent pipeline's producers lowered, optimized and
# emitted as a function in an LLVM module of its own, on a thread beside the rest, its PTX then
# spliced into the kernel (compiler/ptx_splice.c). The SASS is not byte-identical to the default's:
# the full kernel's consumer K loops take 1 to 5 more integer instructions (tid re-read inside the
# loop), the TMA-only kernel's (the JIT's) the same counts; the producers' TMA loops the same.
# Correctness first, then speed against the default, cuBLAS in each process (once: repeat if close); then the
# whole-process compile time (the tf32-rna kernel: two entries, four parts) on this machine's 16
# cores, where the split should pay most.
# Pack with bench/device/pack.sh, carry ["carry"], command: bash bench/results/2026-12-05-v21/notrun_go1.sh
# Also this session's default change: the swapped consumers' B fragment offsets computed before the
# K loop (lower_wgmma_swapped.c swapped_frags): their K loops 16-24 integer instructions shorter
# (128x256 tf32-rne 103 -> 79, tf32-rna 439 -> 415, 128x128 77 -> 61), no new spills. Its
# correctness (gpu_test_gemm with the defaults) first; its speed shows in the default rows below
# against session 17's same-run ratios (tf32-rna 0.86x / 0.86x, tf32-rne 0.95x / 0.93x with
# -fwgmma-tma-only, bench/NOTES.md "session 17").
. bench/device/env.sh
S=$SECONDS
TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > /tmp/def.log 2>&1
echo "default gpu_test_gemm exit $?"; tail -1 /tmp/def.log; grep -B2 FAIL /tmp/def.log | head
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-frole-functions timeout 150 $B/bin/gpu_test_gemm > /tmp/rf.log 2>&1
echo "role-functions gpu_test_gemm exit $?"; tail -1 /tmp/rf.log; grep -B2 FAIL /tmp/rf.log | head
# the full kernel (-fno-wgmma-tma-only: its consumer loops differ most) and the JIT's TMA-only one
for k in -fno-wgmma-tma-only -fwgmma-tma-only; do for c in --copt=-frole-functions ""; do
  echo "== $k ${c:-default}"
  timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne,tf32-rna --shapes=4096,8192 --cfg=128x256x32w8g8 \
    --target-ms=40 --warmup-ms=100 --compile-runs=1 --copt=$k $c 2>&1 | grep -E '^[0-9]+x.*(tilec|cublas tf32)'
done; done
for c in --copt=-frole-functions ""; do echo "== compile ${c:-default}"
  timeout 60 $B/bin/bench_gemm --compile-only --tilec=$B/tilec --cfg=128x256x32w8g8,128x128x32w8g8 \
    --archs=sm_90a --compile-runs=11 $c 2>&1 | grep -E 'process|compile sm'
done
echo "t=$((SECONDS-S))"
