# session 14, prepared for the next device call (no device was lent in session 14). Pack with
# `OLD=76badf0 bench/device/pack.sh`, run with carry ["carry"]: `bash bench/results/2026-12-05-v17/notrun_go1.sh`.
# 1. Correctness of session 14's changes, never run on a GPU: checked tile stores as predicated inline
#    st.global (edge tiles and every tile of an odd-strided C), consumers at 200 registers one program a
#    block too; gpu_test_persistent (written in session 13, never run).
# 2. Speed, old (76badf0) against new in one call: the odd shape (its interior now takes the checked
#    path), small K (pairs path, unchanged), 4096^3 (the epilogue's share is largest there).
. bench/device/env.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_persistent 120 $B/bin/gpu_test_persistent
run t_gemm 200 $B/bin/gpu_test_gemm
TILEC_TEST_COPT=-fno-persistent run t_gemm_n 200 $B/bin/gpu_test_gemm
for t in ops preround; do run t_$t 120 $B/bin/gpu_test_$t; done
TILEC_GPU_QUICK=1 TILEC_PERSIST_BLOCKS=3 run memcheck 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm
bb() { timeout 100 "$@" --no-cublas --archs=sm_90a --target-ms=40 --warmup-ms=100 --compile-runs=3 \
  --shapes=8191x8193x8190,4096x4096x64,4096 --modes=tf32-rna,tf32-rne,ieee --cfg=128x256x32w8g8,128x128x32w8g8 2>&1 | grep -E '^[0-9]+x|rror|^process'; }
for r in 1 2; do
  echo "old $(cat $OLD_B/COMMIT)"; LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH bb $OLD_B/bench_gemm --tilec=$OLD_B/tilec_static
  echo new; bb $B/bin/bench_gemm --tilec=$B/tilec
done > $OUT/ab.log; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
