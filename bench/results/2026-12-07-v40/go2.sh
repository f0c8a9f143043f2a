# Session 37, call 2 (any GPU): (1) -fwgmma-tma-store against the CLI's default (the kernel's own
# stores: whole tiles unrolled, edge tiles by rows through shared memory), same process per row
# pair, two interleaved rounds: aligned shapes (C by TMA) and the odd shape (no map for C:
# ldc = 8193, so the new loop of 5cd9bdb stores C). Decides whether the CLI takes the JIT's
# store default. (2) gpu_test_gemm's quick set with -fwgmma-tma-store on hardware (the own loop
# runs for every N % 4 != 0 case).
# Needs carry/b.tar.xz from bench/device/pack.sh at 5cd9bdb or later.
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 80 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@"; }
for round in 1 2; do
  for v in "def" "ts --copt=-fwgmma-tma-store"; do
    set -- $v; n=$1; shift
    [ $((SECONDS-S)) -gt 330 ] && break
    echo "== $n round $round t=$((SECONDS-S))"
    { bg "$@" --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8; bg "$@" --modes=3xtf32 --cfg=128x128x32w8 --no-cublas; } > $R/$n$round.log 2>&1
    grep -E '^ *(tilec|cublas)' $R/$n$round.log | grep -v sm_80 | tr -s ' ' | cut -c1-110
  done
done
echo "== gpu_test_gemm quick, -fwgmma-tma-store t=$((SECONDS-S))"
TILEC_GPU_QUICK=1 TILEC_TEST_COPT=-fwgmma-tma-store timeout $((570-(SECONDS-S))) $B/bin/gpu_test_gemm > $R/gemm_ts.log 2>&1; echo "exit $?"
grep -c ': ok' $R/gemm_ts.log; grep -E 'FAIL|BAD' $R/gemm_ts.log | head; tail -3 $R/gemm_ts.log
tar -C $R -czf $R/logs.tgz $(cd $R && ls *.log) && rm -f $R/*.log
echo "t=$((SECONDS-S))"
