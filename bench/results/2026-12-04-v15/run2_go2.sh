# session 12 call 2 (f6558c5 + the K floor): the GPU tests in full, the pre-rounding test under memcheck and
# racecheck, then the rule's shapes A/B (default vs TILEC_PREROUND=0) in separate processes with a longer warm-up
. carry/dev.sh
S=$SECONDS
( timeout 300 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -B3 FAIL $OUT/t_gemm.log | head -20; grep -c 'notes a staged view: ok' $OUT/t_gemm.log
echo "t=$((SECONDS-S))"
for t in preround accuracy ops autotune faults round_all; do ( timeout 120 $B/bin/gpu_test_$t > $OUT/t_$t.log 2>&1; echo "gpu_test_$t exit $?" ); tail -1 $OUT/t_$t.log; done
echo "t=$((SECONDS-S))"
( timeout 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_preround > $OUT/memcheck.log 2>&1; echo "memcheck preround exit $?" ); tail -2 $OUT/memcheck.log
( timeout 150 compute-sanitizer --tool racecheck $B/bin/gpu_test_preround > $OUT/racecheck.log 2>&1; echo "racecheck preround exit $?" ); tail -2 $OUT/racecheck.log
echo "t=$((SECONDS-S))"
SH=4096,8192,8191x8193x8190,4096x4096x64,2048,4096x4096x1024
bb() { timeout 100 "$@" --archs=sm_90a --target-ms=30 --warmup-ms=100 --compile-runs=1 --shapes=$SH 2>&1 | grep -E '^[0-9]+x|rror'; }
{
echo "== default rule"; bb $B/bin/bench_gemm --modes=tf32-rna,tf32-rne --cfg=128x256x32w8,128x128x32w8
echo "== TILEC_PREROUND=0"; TILEC_PREROUND=0 bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8
echo "== default rule again"; bb $B/bin/bench_gemm --no-cublas --modes=tf32-rna --cfg=128x256x32w8,128x128x32w8
} > $OUT/ab.log 2>&1; cat $OUT/ab.log
echo "t=$((SECONDS-S))"
