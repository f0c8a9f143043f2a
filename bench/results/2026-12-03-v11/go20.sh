# session 8, call 3: conflict-free B fragments (nperm) with -fwgmma-tma: timing, full test, ncu
. carry/dev.sh
S=$SECONDS
timeout 150 $B/bin/bench_gemm --copt=-fwgmma-tma --archs=sm_90a --target-ms=40 --warmup-ms=20 --compile-runs=1 --modes=tf32-rne,tf32-rna,tf32-trunc --shapes=4096,8192 --cfg=128x256x32w8,256x128x32w8,128x128x32w8,128x256x32w8g8 2>&1 | grep -E '^(shape|[0-9]+x)|rror|FAIL' > $OUT/b_nperm.log; cat $OUT/b_nperm.log
echo "t=$((SECONDS-S))"
( TILEC_TEST_COPT=-fwgmma-tma timeout 230 $B/bin/gpu_test_gemm > $OUT/t_full_nperm.log 2>&1; echo "gpu_test_gemm full -fwgmma-tma exit $?" ); tail -2 $OUT/t_full_nperm.log; grep -B2 -A2 FAIL $OUT/t_full_nperm.log | head -12
echo "t=$((SECONDS-S))"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 100 $ncu --clock-control none -k regex:'^gemm$' -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats $B/bin/bench_gemm --shapes=4096 --modes=tf32-rne --archs=sm_90a --cfg=128x256x32w8 --copt=-fwgmma-tma --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 --no-cublas > $OUT/ncu_nperm.txt 2>&1; echo "ncu exit $?"
grep -E 'Duration|Throughput|bank|Tensor is|Issue Slots|Eligible|Warp Cycles Per Issued' $OUT/ncu_nperm.txt | head -20
echo "t=$((SECONDS-S))"
