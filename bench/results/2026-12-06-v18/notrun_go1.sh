# session 15, prepared for the next device call (no device was lent in sessions 14 and 15). Pack with
# `OLD=76badf0 bench/device/pack.sh` (session 13's commit, the last one timed on a GPU), run with
# carry ["carry"]: `bash bench/results/2026-12-06-v18/notrun_go1.sh`, then notrun_go2.sh and notrun_go3.sh
# (more tests), notrun_go4.sh (the timings) and notrun_go5.sh (-fwgmma-tma-only timed) in calls of their own (each
# within the 10-minute limit of a call). Replaces ../2026-12-05-v17/notrun_go1.sh (its
# -fwgmma-round-b item is moot: the rounded-views entry point gives the one-body compile without it).
# 1. Correctness, never run on a GPU: session 14's predicated checked stores and 200-register consumers;
#    session 15's entry point for rounded views (gemm$rounded), which every pre-rounded tf32-rna launch
#    now takes (gpu_test_preround compares it bit for bit with the rounding entry; gpu_test_gemm's
#    large tf32-rna shapes take it too); gpu_test_persistent (never run); the parallel autotune loads.
# 2. Speed, old (76badf0) against new: tf32-rna at 4096^3 and 8192^3 (pre-rounded: the $rounded entry,
#    whose consumer K loop is tf32-rne's instruction for instruction), the odd shape (checked stores),
#    small K; with the compile rows: process and JIT cold (ptxas --split-compile on two entries).
# 3. tilec and ptxas apart on the benchmark's 128x256 kernel, old and new (build machine: process
#    73.6 -> 53.3 ms, ptxas 0.42 -> 0.28 s).
. bench/device/env.sh
S=$SECONDS
run() { local name=$1 lim=$2; shift 2; ( timeout $lim "$@" > $OUT/$name.log 2>&1; echo "$name exit $?" ); tail -1 $OUT/$name.log; grep -B2 FAIL $OUT/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
run t_preround 120 $B/bin/gpu_test_preround
run t_persistent 120 $B/bin/gpu_test_persistent
run t_gemm 200 $B/bin/gpu_test_gemm
for t in ops faults; do run t_$t 60 $B/bin/gpu_test_$t; done
echo "t=$((SECONDS-S))"
