# Session 37, call 5 (any GPU): the TMA-store kernel's own path without the async-proxy fence
# (de8a322): go2.sh's odd-shape rows again (C has no map there: the loop stores it), default
# against -fwgmma-tma-store, three interleaved rounds; tf32-rne read 5-10% lower in go2.sh.
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=8191x8193x8190 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 "$@"; }
for round in 1 2 3; do
  for v in "def" "ts --copt=-fwgmma-tma-store"; do
    set -- $v; n=$1; shift
    echo "== $n round $round t=$((SECONDS-S))"
    bg "$@" > $R/$n$round.log 2>&1
    grep -E '^ *(tilec|cublas tf32)' $R/$n$round.log | tr -s ' ' | cut -c1-110
  done
done
tar -C $R -czf $R/logs.tgz $(cd $R && ls *.log) && rm -f $R/*.log
echo "t=$((SECONDS-S))"
