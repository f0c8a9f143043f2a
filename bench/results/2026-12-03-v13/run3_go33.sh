# session 10 call 3: staging with the copy kernel: full gpu_test_gemm, memcheck on the quick test (staged cases
# included), odd shapes, and ncu kernel times for the N-odd shape against aligned
. carry/dev.sh
S=$SECONDS
( TILEC_SOURCE_DIR=$PWD timeout 200 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -E "FAIL|staged" $OUT/t_gemm.log | head -8
echo "t=$((SECONDS-S))"
bb() { timeout 150 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 "$@" 2>&1 | grep -E '^[0-9]+x|rror'; }
{ echo "== odd and aligned, staged with the copy kernel"; bb --modes=tf32-rna,tf32-rne,bf16 --shapes=8191x8193x8190,8192,8192x8193x8192,4095x4097x63 --cfg=128x256x32w8; } > $OUT/odd.log 2>&1; cat $OUT/odd.log
echo "t=$((SECONDS-S))"
for sh in 8192x8193x8192 8192x8192x8190 8192; do
  timeout 100 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum -k regex:'gemm|stage' --launch-count 6 \
    $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne --shapes=$sh --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --cfg=128x256x32w8 > $OUT/ncu_$sh.log 2>&1
  echo "== ncu $sh"; grep -E "tilec_stage|gemm|duration|bytes" $OUT/ncu_$sh.log | head -24
done
echo "t=$((SECONDS-S))"
( TILEC_GPU_QUICK=1 TILEC_SOURCE_DIR=$PWD timeout 150 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm > $OUT/memcheck.log 2>&1; echo "memcheck quick exit $?" ); grep -E "ERROR SUMMARY|^PASS|FAIL" $OUT/memcheck.log | tail -3
echo "t=$((SECONDS-S))"
