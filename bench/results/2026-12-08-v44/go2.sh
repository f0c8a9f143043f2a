# Session 41, call 2 (session 40's notrun_go3.sh, which never ran): the full benchmark with cuBLAS and Triton in the same run, for BENCHMARKS.md; the build with the sm_80 cp.async + mma.sync pipeline.
. bench/device/env.sh
S=$SECONDS; R=$OUT
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a,sm_80 --compile-runs=3"
left=$((585-(SECONDS-S))); echo "full run, limit ${left}s"
timeout $left bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^\[|^ *(cublas|tilec)' $R/full/tilec_gemm.log | grep -v sm_80 | tr -s ' ' | cut -c1-100 | head -70
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -20
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -30
gzip $R/run.log; tar -C $R -czf $R/full.tgz full && rm -rf $R/full
echo "t=$((SECONDS-S))"
