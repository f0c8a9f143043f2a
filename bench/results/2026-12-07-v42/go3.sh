# Session 39 (any GPU): 3xtf32 at 128x128 (today's default: session 38's unmasked rounding and hic)
# against cuBLAS SGEMM in the same processes, three rounds, at 4096³, 8192³ and the odd shape:
# the 3xtf32 row, which session 38's full run timed before hic. Also nvidia-smi's clock and power
# while 8192³ runs (power cap: v30).
. bench/device/env.sh
S=$SECONDS; R=$OUT
bg() { timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=60 --warmup-ms=30 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | grep -E '^ *(tilec|cublas +sgemm)' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s ", $(i-1); for(i=1;i<=NF;i++) if($i=="err") printf "(%s)  ", $(i+1)}'; }
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv,noheader -lms 500 > $R/smi.csv &
for r in 1 2 3; do echo "3xtf32 $r (sgemm, tilec at 4096, 8192, odd): $(bg)"; done
kill %1; sort $R/smi.csv | uniq -c | sort -rn | head -8
echo "t=$((SECONDS-S))"
# output (H100 80GB HBM3, build 239f99d; TFLOP/s (error): cuBLAS SGEMM then tilec 3xtf32, at 4096³, 8192³, 8191x8193x8190):
# 3xtf32 1: 51.7 (1.14e-06)  101.6 (3.11e-07)  52.0 (1.62e-06)  94.8 (3.72e-07)  48.9 (1.62e-06)  94.1 (3.72e-07)
# 3xtf32 2: 52.1 (1.14e-06)  100.7 (3.11e-07)  52.0 (1.62e-06)  94.8 (3.72e-07)  49.3 (1.62e-06)  93.6 (3.72e-07)
# 3xtf32 3: 52.1 (1.14e-06)  100.4 (3.11e-07)  51.7 (1.62e-06)  93.8 (3.72e-07)  48.9 (1.62e-06)  93.4 (3.72e-07)
# nvidia-smi every 500 ms (run3/smi.csv): 1410-1980 MHz, up to 700.8 W, throttle 0x4 (SW power cap) in
# 20 of 41 samples
