# Session 34, call 1 (carry/b.tar.xz from bench/device/pack.sh at 62cc13e): (1) gpu_test_gemm's quick
# set on hardware: 7706719 (am_transpose through panel128_offset / wg_swz; only the interpreter had
# run it) and ieee with a K-major B (the FMA consumers reading B^T's rows, new); (2) ieee 128x128 with
# a K-major B against -fno-wgmma-kmajor-b (element copies) and a row-major B, cuBLAS SGEMM beside;
# (2b) tf32 256x128 against 128x256 (row-major; a model of shared-memory bytes a FLOP says 256x128
# needs 11% fewer: NOTES v37); (3) tf32 128x256 g8 at 4096³ with A M-major against row-major (trunc, rna, rne); (4) ncu of
# tf32-trunc A M-major against row-major at 4096³ (SpeedOfLight, memory and warp-state sections):
# is the M-major kernel's 0.77-0.83x (v36) the shared memory's bandwidth or issue slots?
. bench/device/env.sh
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@"; }
show() { grep -E '^ *(tilec|cublas (sgemm|tf32))' | tr -s ' ' | cut -c1-110; }
t gemm; TILEC_GPU_QUICK=1 timeout 200 $B/bin/gpu_test_gemm > $OUT/gemm.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm.log; grep -E 'FAIL|failing' $OUT/gemm.log | head -5
echo "f32 A M-major ok: $(grep ' f32 .*A M-major' $OUT/gemm.log | grep -c ': ok'); ieee B K-major ok: $(grep 'ieee .* f32 .*B K-major' $OUT/gemm.log | grep -c ': ok')"
for v in "bk --b-kmajor" "bk-old --b-kmajor --copt=-fno-wgmma-kmajor-b" "rm"; do
  set -- $v; n=$1; shift
  t "ieee $n"; bg --modes=ieee --cfg=128x128x32w8 --shapes=4096,8192 "$@" 2>&1 | show
done
for c in 256x128x32w8g8 128x256x32w8g8; do
  t "tf32 $c"; bg --modes=tf32-trunc,tf32-rne,tf32-rna --cfg=$c --shapes=4096,8192 2>&1 | show
done
for v in "am --a-mmajor" "rm"; do
  set -- $v; n=$1; shift
  t "tf32 $n"; bg --modes=tf32-trunc,tf32-rna,tf32-rne --cfg=128x256x32w8g8 --shapes=4096 "$@" 2>&1 | show
done
K="--archs=sm_90a --modes=tf32-trunc --cfg=128x256x32w8g8 --shapes=4096 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1"
for v in "am --a-mmajor" "rm"; do
  set -- $v; n=$1; shift
  [ $((SECONDS-S)) -gt 300 ] && break
  t "ncu $n"
  timeout 100 ncu --clock-control none -k regex:gemm -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section InstructionStats --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum \
    $B/bin/bench_gemm $K "$@" > $OUT/ncu_$n.txt 2>&1
  echo "ncu exit $?"; grep -E 'Duration|SM Frequency|Throughput|Issue Slots|Shared|shared|Bank|gmma|inst_executed|Warp Cycles Per Issued|Stall|Registers' $OUT/ncu_$n.txt | tr -s ' ' | head -40
done
gzip $OUT/*.txt $OUT/*.log
echo "t=$((SECONDS-S))"
