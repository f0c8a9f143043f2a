# Session 37, call 1: an H200 (the issue's targets are the H200's; the last H200 full run was session
# 26). (1) The full benchmark with cuBLAS and Triton in the same run (bench/run.sh; sm_90a and the
# sm_80 baseline; the bf16 odd shape among its rows), as session 36's H100 full run (v39 go2.sh).
# (2) If time is left: C's own stores where a launch gives no map for C (the odd shape: ldc = 8193),
# -fwgmma-tma-store's new loop (5cd9bdb) against the default (stores by rows). (The old build's unrolled stores as a third row did not fit the carry limit.)
# Needs carry/b.tar.xz from bench/device/pack.sh at 5cd9bdb or later.
. bench/device/env.sh
S=$SECONDS; R=$OUT
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=3"
timeout 450 bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | grep -v sm_80 | tr -s ' ' | cut -c1-100 | head -70
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -20
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -30
tar -C $R -czf $R/full.tgz full && rm -rf $R/full
bg() { timeout 50 "$@" --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=8191x8193x8190; }
both() { bg "$@" --modes=tf32-rna --cfg=128x256x32w8g8; bg "$@" --modes=3xtf32 --cfg=128x128x32w8; }
for round in 1 2; do
  for v in "def $B/bin/bench_gemm" "new $B/bin/bench_gemm --copt=-fwgmma-tma-store"; do
    set -- $v; n=$1; shift
    [ $((SECONDS-S)) -gt 540 ] && break
    echo "== $n round $round t=$((SECONDS-S))"
    if [ $n = old ]; then LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH both "$@" > $R/$n$round.log 2>&1
    else both "$@" > $R/$n$round.log 2>&1; fi
    grep -E '^ *(tilec|cublas)' $R/$n$round.log | tr -s ' ' | cut -c1-100
  done
done
gzip $R/run.log; tar -C $R -czf $R/ab.tgz $(cd $R && ls *.log 2>/dev/null) && rm -f $R/*.log
echo "t=$((SECONDS-S))"
