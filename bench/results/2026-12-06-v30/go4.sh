# Session 27, fourth device call: where 3xtf32's warps stall (go3.sh: the tensor pipe 65% busy
# under ncu, CTA-barrier stalls a third of the cycles between issues). ncu's per-instruction
# stall samples (source page, SASS) of one 4096^3 launch, 128x128; the top instructions by
# samples, with their neighbours. T seconds at most (default 240). carry ["carry/f.tar.xz"].
T=${T:-240}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
mkdir -p $OUT
A="--archs=sm_90a --cfg=128x128x32w8 --compile-runs=1 --modes=3xtf32 --shapes=4096 --no-cublas --target-ms=5 --warmup-ms=5"
timeout 200 ncu --launch-skip 3 --launch-count 1 -k regex:'^gemm' --section WarpStateStats --section SourceCounters \
  --page source --print-source sass --csv $B/bin/bench_gemm $A > $OUT/src.csv 2> $OUT/src.err
echo "ncu exit $? lines $(wc -l < $OUT/src.csv)"
head -c 600 $OUT/src.csv; echo
tail -3 $OUT/src.err
