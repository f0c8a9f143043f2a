# Session 37, call 4: an H200 if one comes (go1.sh and go3.sh in one call, the first shortened):
# (1) 3xtf32 -fwgmma-x3-halves against the default (go3.sh's rows, two interleaved rounds);
# (2) the full benchmark with cuBLAS and Triton in the same run (go1.sh's), in what time is left.
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@"; }
for round in 1 2; do
  for v in "def" "halves --copt=-fwgmma-x3-halves"; do
    set -- $v; n=$1; shift
    echo "== $n round $round t=$((SECONDS-S))"
    bg "$@" > $R/$n$round.log 2>&1
    grep -E '^ *(tilec|cublas sgemm)' $R/$n$round.log | tr -s ' ' | cut -c1-110
  done
done
tar -C $R -czf $R/ab.tgz $(cd $R && ls *.log) && rm -f $R/*.log
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=3"
left=$((575-(SECONDS-S))); echo "full run, limit ${left}s"
timeout $left bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | grep -v sm_80 | tr -s ' ' | cut -c1-100 | head -70
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -20
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -30
gzip $R/run.log; tar -C $R -czf $R/full.tgz full && rm -rf $R/full
echo "t=$((SECONDS-S))"
