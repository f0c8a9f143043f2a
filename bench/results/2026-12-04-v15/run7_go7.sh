# session 12 call 7 (f2d2bdf): the grouped tile order (g8, a 1-D grid) against the 2-D grid, tf32-rna / rne / bf16
. carry/dev.sh
S=$SECONDS
bb() { timeout 150 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=100 --compile-runs=1 "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
{ bb --shapes=8192,4096,8191x8193x8190,4096x4096x64 --modes=tf32-rna,tf32-rne,bf16 --cfg=128x256x32w8,128x256x32w8g8 --cfg-bf16=128x256x64w8,128x256x64w8g8
  echo "== again, no cuBLAS"; bb --no-cublas --shapes=8192,4096 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8,128x256x32w8 ; } > $OUT/g8.log 2>&1; cat $OUT/g8.log
echo "t=$((SECONDS-S))"
