# session 14, prepared for the next device call (no device was lent in session 14). Pack with
# `OLD=76badf0 bench/device/pack.sh`, run with carry ["carry"]: `bash bench/results/2026-12-05-v17/notrun_go1.sh`.
# 1. Correctness of session 14's changes, never run on a GPU: checked tile stores as predicated inline
#    st.global (edge tiles and every tile of an odd-strided C), consumers at 200 registers one program a
#    block too; gpu_test_persistent (written in session 13, never run); tilecAutotune's loads from
#    several threads (gpu_test_autotune).
# 2. Speed, old (76badf0) against new in one call: the odd shape (its interior now takes the checked
#    path), small K (pairs path, unchanged), 4096^3 (the epilogue's share is largest there).
# 3. tf32-rna persistent with -fwgmma-round-b (one consumer body: 3635 PTX lines against 4539, ptxas
#    0.23 s against 0.39 s on the build machine) against the default (session 13's notrun_go6.sh), with
#    the compile rows (which now take --copt), then tilec and ptxas timed apart on that kernel: if
#    round-b keeps the speed, it cuts the JIT's ptxas time by ~40% (one program a block it was 24% slower
#    at 4096^3, v15 run3: expected to lose again).
. bench/device/env.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_persistent 120 $B/bin/gpu_test_persistent
run t_gemm 200 $B/bin/gpu_test_gemm
TILEC_TEST_COPT=-fno-persistent run t_gemm_n 200 $B/bin/gpu_test_gemm
for t in ops preround autotune faults; do run t_$t 120 $B/bin/gpu_test_$t; done
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=3 run memcheck 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm
bb() { timeout 100 "$@" --no-cublas --archs=sm_90a --target-ms=40 --warmup-ms=100 --compile-runs=3 \
  --shapes=8191x8193x8190,4096x4096x64,4096 --modes=tf32-rna,tf32-rne,ieee --cfg=128x256x32w8g8,128x128x32w8g8 2>&1 | grep -E '^[0-9]+x|rror|^process'; }
for r in 1 2; do
  echo "old $(cat $OLD_B/COMMIT)"; LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH bb $OLD_B/bench_gemm --tilec=$OLD_B/tilec_static
  echo new; bb $B/bin/bench_gemm --tilec=$B/tilec
done > $OUT/ab.log; cat $OUT/ab.log
rb() { timeout 150 $B/bin/bench_gemm --tilec=$B/tilec --no-cublas --archs=sm_90a --target-ms=30 --warmup-ms=50 --compile-runs=2 \
  --shapes=8192,4096,4096x4096x64,2048 --modes=tf32-rna --cfg=128x256x32w8g8 "$@" 2>&1 | grep -E '^[0-9]+x|rror|^jit-cold|^compile|^process'; }
for r in 1 2; do echo round-b; rb --copt=-fwgmma-round-b; echo default; rb; done > $OUT/round_b.log; cat $OUT/round_b.log
# tilec and ptxas apart on the benchmark's kernel
$B/bin/bench_gemm --source=f32 --cfg=128x256x32w8g8 > $OUT/g256.tir
for o in "" -fwgmma-round-b; do for r in 1 2 3; do
  /usr/bin/time -f "tilec $o %e s" $B/tilec $o $OUT/g256.tir -o $OUT/g.ptx
  /usr/bin/time -f "ptxas $o %e s" ptxas -arch=sm_90a $OUT/g.ptx -o $OUT/g.cubin; done; done 2>&1 | tee $OUT/compile.log
echo "t=$((SECONDS-S))"
