# Session 36, call 1 (planned in v38 as notrun_go4.sh; NOTES "Next (planned, after session 35)", item 1):
# ncu at the clocks as found, one kernel launch each, of (a) ieee 128x128
# with a K-major B against a row-major B (why 0.89x: bank conflicts, or the schedule) and (b)
# tf32-trunc 128x256 g8 with an M-major A against row-major (shared-memory throughput near its
# peak in both, as NOTES v37's model says?), after timing (a) once more (997e73a changed its loads).
# Then gpu_test_gemm's quick set if time is left.
# Sections only (MemoryWorkloadAnalysis_Tables has shared memory's wavefronts and bank conflicts):
# a metric name this ncu does not know would end the whole profile. Needs carry/b.tar.xz from
# bench/device/pack.sh at this commit or later.
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 40 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^ *(tilec|cublas sgemm)' | tr -s ' ' | cut -c1-110; }
for r in 1 2; do  # 997e73a's loads (predicted: 43-44 TFLOP/s, from v38's 42.1-43.4) against the row-major B
  for v in "bk --b-kmajor" "rm"; do set -- $v; n=$1; shift; t "ieee $n round $r"; bg --modes=ieee --cfg=128x128x32w8 --shapes=4096,8192 "$@" 2>&1 | show; done
done
N="--archs=sm_90a --shapes=4096 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1"
for v in "ieee-bk --modes=ieee --cfg=128x128x32w8 --b-kmajor" "ieee-rm --modes=ieee --cfg=128x128x32w8" \
         "trunc-am --modes=tf32-trunc --cfg=128x256x32w8g8 --a-mmajor" "trunc-rm --modes=tf32-trunc --cfg=128x256x32w8g8"; do
  set -- $v; n=$1; shift
  [ $((SECONDS-S)) -gt 400 ] && break
  t "ncu $n"
  timeout 100 ncu --clock-control none -k regex:gemm -c 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section InstructionStats \
    $B/bin/bench_gemm $N "$@" > $OUT/ncu_$n.txt 2>&1
  echo "ncu exit $?"; grep -E 'Duration|SM Frequency|Throughput|Issue Slots|Shared|shared|Bank|gmma|fma|inst_executed|Warp Cycles Per Issued|Stall|Registers' $OUT/ncu_$n.txt | tr -s ' ' | head -40
done
t gemm; TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
gzip $OUT/*.txt $OUT/*.log
echo "t=$((SECONDS-S))"
