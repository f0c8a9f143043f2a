# session 12 call 5 (db8f441): ncu profiles for the next step: tf32-rna (pre-rounded) and tf32-rne 8192^3 at
# 128x256 against cuBLAS TF32's kernel, and bf16 aligned against 8191x8193x8190
. carry/dev.sh
S=$SECONDS
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy"
prof() { local name=$1 kre=$2; shift 2; timeout 150 $NCU --clock-control none -k regex:"$kre" -c 1 $SEC -o $OUT/$name $B/bin/bench_gemm --archs=sm_90a --reps=1 --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --compile-runs=1 "$@" > /dev/null 2>&1; echo "$name exit $?"; $NCU --import $OUT/$name.ncu-rep --page details > $OUT/$name.txt 2>&1; rm -f $OUT/$name.ncu-rep; grep -E 'Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|L1/TEX Hit|Mem Busy|Max Bandwidth|Executed Ipc A' $OUT/$name.txt | head -14; }
prof rna8192 '^gemm' --shapes=8192 --modes=tf32-rna --cfg=128x256x32w8 --no-cublas
prof rne8192 '^gemm' --shapes=8192 --modes=tf32-rne --cfg=128x256x32w8 --no-cublas
prof cublas8192 'tf32' --shapes=8192 --modes=tf32-rne --cfg=128x256x32w8
prof bf16odd '^gemm' --shapes=8191x8193x8190 --modes=bf16 --cfg-bf16=128x256x64w8 --no-cublas
prof bf16al '^gemm' --shapes=8192 --modes=bf16 --cfg-bf16=128x256x64w8 --no-cublas
echo "t=$((SECONDS-S))"
