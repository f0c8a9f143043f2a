# session 15: the fourth device call, after notrun_go1.sh to notrun_go3.sh (same carry): speed and compile time, old
# (76badf0, the last commit timed on a GPU) against new. See notrun_go1.sh for what each item checks.
. bench/device/env.sh
S=$SECONDS
bb() { timeout 120 "$@" --no-cublas --archs=sm_90a --target-ms=40 --warmup-ms=100 --compile-runs=3 \
  --shapes=8192,4096,8191x8193x8190,4096x4096x64 --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8,128x128x32w8g8 2>&1 | grep -E '^[0-9]+x|rror|^process|^jit|^compile'; }
for r in 1 2; do
  echo "old $(cat $OLD_B/COMMIT)"; LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH bb $OLD_B/bench_gemm --tilec=$OLD_B/tilec_static
  echo new; bb $B/bin/bench_gemm --tilec=$B/tilec
done > $OUT/ab.log; cat $OUT/ab.log
$B/bin/bench_gemm --source=f32 --cfg=128x256x32w8g8 > $OUT/g256.tir
for r in 1 2 3; do
  /usr/bin/time -f "old tilec %e s" $OLD_B/tilec_static $OUT/g256.tir -o $OUT/o.ptx
  /usr/bin/time -f "old ptxas %e s" ptxas -arch=sm_90a $OUT/o.ptx -o $OUT/o.cubin
  /usr/bin/time -f "new tilec %e s" $B/tilec $OUT/g256.tir -o $OUT/n.ptx
  /usr/bin/time -f "new ptxas --split-compile=2 %e s" ptxas -arch=sm_90a --split-compile=2 $OUT/n.ptx -o $OUT/n.cubin
done 2>&1 | tee $OUT/compile.log
echo "t=$((SECONDS-S))"
