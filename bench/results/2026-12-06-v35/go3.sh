# Session 32, third call (carry/b.tar.xz from bench/device/pack.sh at bbf4468): an H200 for the rows
# measured only on H100s since session 26. (1) The full benchmark with cuBLAS and Triton in the same
# run (bench/run.sh; sm_90a and the sm_80 baseline; the bf16 odd shape among its rows). (2) B K-major
# (x @ W^T) for bf16 and tf32, cuBLAS TN in the same process.
. bench/device/env.sh
S=$SECONDS; R=$OUT
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=3"
timeout 400 bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | grep -v sm_80 | tr -s ' ' | cut -c1-100 | head -70
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -20
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -30
echo "== B K-major t=$((SECONDS-S))"
timeout 90 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne,bf16 --cfg=128x256x32w8g8 --cfg-bf16=128x256x64w8g8 \
  --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 --b-kmajor > $R/kmajor.log 2>&1
grep -E '^\[|^ *(tilec|cublas (tf32|bf16))' $R/kmajor.log | tr -s ' '
gzip $R/run.log $R/kmajor.log
echo "t=$((SECONDS-S))"
