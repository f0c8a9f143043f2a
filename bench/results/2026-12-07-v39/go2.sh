# Session 36, call 2 (NOTES "Next (planned, after session 35)", item 2): an H200 for the rows measured
# only on H100s since session 26 (the issue's targets are the H200's). (1) The full benchmark with
# cuBLAS and Triton in the same run (bench/run.sh; sm_90a and the sm_80 baseline; the bf16 odd shape
# among its rows), as session 32's H100 full run (v35 go3.sh). (2) The layouts added since session 26
# (B K-major, A M-major) for tf32-rna, 3xtf32, ieee, cuBLAS with the same layouts in each process.
# Needs carry/b.tar.xz (bench/device/pack.sh) at 6c3e8d2 or later.
. bench/device/env.sh
S=$SECONDS; R=$OUT
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=3"
timeout 420 bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | grep -v sm_80 | tr -s ' ' | cut -c1-100 | head -70
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -20
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -30
bg() { timeout 40 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192 "$@"; }
for v in "bk --modes=tf32-rna --cfg=128x256x32w8g8 --b-kmajor" "bk3 --modes=3xtf32,ieee --cfg=128x128x32w8 --b-kmajor" \
         "am --modes=tf32-rna --cfg=128x256x32w8g8 --a-mmajor" \
         "am3 --modes=3xtf32,ieee --cfg=128x128x32w8 --a-mmajor"; do
  set -- $v; n=$1; shift
  [ $((SECONDS-S)) -gt 540 ] && break
  echo "== $n t=$((SECONDS-S))"; bg "$@" > $R/$n.log 2>&1
  grep -E '^\[|^ *(tilec|cublas)' $R/$n.log | tr -s ' ' | cut -c1-100
done
gzip $R/run.log $R/*.log
echo "t=$((SECONDS-S))"
