# Session 36, call 4: per-instruction data for go1's open questions (go1's sections-only profiles could
# not say where): ncu at the clocks as found, one kernel launch each, SourceCounters and WarpStateStats
# with the SASS source page exported (stall samples, shared-memory wavefronts and their ideal per
# instruction): ieee 128x128 K-major B against row-major (0.89x with the same instruction count), and
# tf32-trunc 128x256 g8 M-major A against row-major (the transposition's STS.128: ncu's 10.6 wavefronts
# a request against an ideal of ~8). Needs carry/b.tar.xz at 6c3e8d2 or later.
. bench/device/env.sh
S=$SECONDS; R=$OUT
NCU=ncu
N="--archs=sm_90a --shapes=4096 --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1"
for v in "ieee-bk --modes=ieee --cfg=128x128x32w8 --b-kmajor" "ieee-rm --modes=ieee --cfg=128x128x32w8" \
         "trunc-am --modes=tf32-trunc --cfg=128x256x32w8g8 --a-mmajor" "trunc-rm --modes=tf32-trunc --cfg=128x256x32w8g8"; do
  set -- $v; n=$1; shift
  [ $((SECONDS-S)) -gt 420 ] && break
  timeout 120 $NCU --clock-control none -k regex:gemm -c 1 --import-source no --section SpeedOfLight --section WarpStateStats \
    --section SourceCounters --section MemoryWorkloadAnalysis_Tables -o $R/$n $B/bin/bench_gemm $N "$@" > $R/$n.log 2>&1
  echo "ncu $n exit $? t=$((SECONDS-S))"
  $NCU --import $R/$n.ncu-rep --page details --print-details all > $R/${n}_details.txt 2>&1
  $NCU --import $R/$n.ncu-rep --page source --csv --print-source sass > $R/${n}_sass.csv 2>&1
  grep -E 'Duration|Issue Slots|Warp Cycles Per Issued|Stall [A-Z]' $R/${n}_details.txt | tr -s ' ' | head -24
  rm -f $R/$n.ncu-rep
done
gzip $R/*.csv $R/*.txt $R/*.log
echo "t=$((SECONDS-S))"
