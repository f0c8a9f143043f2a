# session 16, device call 2: the benchmark with cuBLAS and Triton in the same run (bench/run.sh, sm_90a,
# the default tiles), then -fwgmma-tma-only with cuBLAS, then old (76badf0, session 13) against new.
. bench/device/env.sh
S=$SECONDS; R=/tmp/res; mkdir -p $R
export SHAPES=1024,4096,8192,8191x8193x8190,4096x4096x64
export BENCH_ARGS="--cfg=128x256x32w8g8,128x128x32w8 --cfg-bf16=128x256x64w8g8,128x128x64w8 --target-ms=40 --warmup-ms=20 --modes=tf32-rna,tf32-rne,3xtf32,ieee,bf16 --archs=sm_90a --compile-runs=3"
timeout 330 bash bench/run.sh $B $R/full > $R/run.log 2>&1; echo "run.sh exit $? t=$((SECONDS-S))"
grep -E '^[0-9]+x' $R/full/tilec_gemm.log | awk '{print $1,$2,$3,$4,$5,$7,$8,$9}'
grep -A14 '^compile time' $R/full/tilec_gemm.log | grep -v '^--' | head -30
grep -E 'tf32|bf16|ieee|first-call' $R/full/triton_gemm.log | head -40
bb() { timeout $1 $2 --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=3 "${@:3}" 2>&1 | grep -E '^[0-9]+x|rror|^process|^jit|^compile|in-process|whole|cold'; }
left=$((580 - SECONDS + S)); [ $left -gt 150 ] && left=150
echo "== tma-only t=$((SECONDS-S))"; bb $left $B/bin/bench_gemm --tilec=$B/tilec --copt=-fwgmma-tma-only \
  --shapes=8192,4096,8191x8193x8190,4096x4096x64 --modes=tf32-rna,tf32-rne,bf16 --cfg=128x256x32w8g8 --cfg-bf16=128x256x64w8g8 | tee $R/tma_only.log
for r in 1 2; do left=$((585 - SECONDS + S)); [ $left -lt 20 ] && break; [ $left -gt 45 ] && left=45
  echo "== old $(cat $OLD_B/COMMIT) t=$((SECONDS-S))"; LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH bb $left $OLD_B/bench_gemm --no-cublas --tilec=$OLD_B/tilec_static --shapes=8192,4096 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8
  left=$((585 - SECONDS + S)); [ $left -lt 20 ] && break; [ $left -gt 45 ] && left=45
  echo "== new t=$((SECONDS-S))"; bb $left $B/bin/bench_gemm --no-cublas --tilec=$B/tilec --shapes=8192,4096 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8
done 2>&1 | tee $R/ab.log
tar -C $R -cJf $OUT/res.tar.xz .
echo "t=$((SECONDS-S))"
