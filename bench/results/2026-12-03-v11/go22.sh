# session 8, call 5: direct fixed (consumers wait on landed[] under TMA): A/B, full test, memcheck
. carry/dev.sh
S=$SECONDS
bb() { timeout $1 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=15 --compile-runs=1 "${@:2}" 2>&1 | grep -E '^[0-9]+x'; }
echo "== default (TMA, direct, nperm) with cuBLAS" > $OUT/ab.log
bb 45 --shapes=4096,8192 --modes=tf32-rne,tf32-trunc --cfg=128x256x32w8 >> $OUT/ab.log
echo "== -fno-wgmma-tma-direct" >> $OUT/ab.log
bb 30 --no-cublas --shapes=4096,8192 --modes=tf32-rne,tf32-trunc --cfg=128x256x32w8 --copt=-fno-wgmma-tma-direct >> $OUT/ab.log
cat $OUT/ab.log; echo "t=$((SECONDS-S))"
COPT=; grep -q "tilec  tf32-rne" <(sed -n '1,/no-wgmma-tma-direct/p' $OUT/ab.log) || COPT=-fno-wgmma-tma-direct
echo "test copt: '$COPT'"
( TILEC_TEST_COPT=$COPT timeout 150 $B/bin/gpu_test_gemm > $OUT/t_gemm.log 2>&1; echo "gpu_test_gemm exit $?" ); tail -1 $OUT/t_gemm.log; grep -B2 -A2 FAIL $OUT/t_gemm.log | head -12
echo "t=$((SECONDS-S))"
( TILEC_TEST_COPT=$COPT TILEC_GPU_QUICK=1 timeout 70 compute-sanitizer --tool memcheck $B/bin/gpu_test_gemm > $OUT/memcheck.log 2>&1; echo "memcheck quick exit $?" ); grep -E "ERROR SUMMARY|^PASS|FAIL" $OUT/memcheck.log | tail -2
echo "t=$((SECONDS-S))"
[ $((SECONDS-S)) -lt 250 ] && bb $((300-SECONDS+S)) --shapes=4096,8192,8191x8193x8190,4096x4096x64 --modes=tf32-rna,3xtf32,bf16 --cfg=128x256x32w8,128x128x32w8 --cfg-bf16=128x256x64w8 > $OUT/b_default.log; cat $OUT/b_default.log
echo "t=$((SECONDS-S))"
