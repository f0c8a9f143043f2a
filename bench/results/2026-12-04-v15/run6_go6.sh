# session 12 call 6: the rounding copy with 16-byte loads for aligned views (working tree) against db8f441 (old/):
# the test, the copies' times under ncu, and tf32-rna timed new / old / new
. carry/dev.sh
S=$SECONDS
( timeout 120 $B/bin/gpu_test_preround > $OUT/t_preround.log 2>&1; echo "gpu_test_preround exit $?" ); tail -1 $OUT/t_preround.log
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
cp() { local name=$1 bin=$2 lib=$3; LD_LIBRARY_PATH=$lib timeout 120 $NCU --clock-control none -k regex:tilec_stage -c 2 --section SpeedOfLight $bin --archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --shapes=8192 --modes=tf32-rna --cfg=128x256x32w8 --no-cublas > $OUT/ncu_$name.txt 2>&1; echo "$name exit $?"; grep -E 'tilec_stage|Duration|DRAM Throughput' $OUT/ncu_$name.txt | head -8; }
cp old $B/old/bench_gemm $B/old
cp new $B/bin/bench_gemm $B/bin
echo "t=$((SECONDS-S))"
SH=8192,4096,4096x4096x1024,8191x8193x8190
bb() { timeout 100 "$@" --archs=sm_90a --target-ms=30 --warmup-ms=100 --compile-runs=1 --shapes=$SH --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8 2>&1 | grep -E '^[0-9]+x|rror'; }
{ echo "== new"; bb $B/bin/bench_gemm; echo "== old (db8f441)"; LD_LIBRARY_PATH=$B/old bb $B/old/bench_gemm; echo "== new again"; bb $B/bin/bench_gemm; } > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
