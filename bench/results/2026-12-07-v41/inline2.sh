# Session 38, call 5 (inline, the same H100 after go2.sh): inline1.sh's A/B again, then the odd
# shape's own C stores (-fwgmma-tma-store: band_stores, now a rolled loop) against the default.
# (Call 4 was this command with a wrong field cut: nothing printed.)
. bench/device/env.sh >/dev/null; bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --target-ms=30 --warmup-ms=20 --compile-runs=1 "$@" 2>&1 | grep -E '^ *tilec' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s %s  ", $2, $(i-1)}'; }; for r in 1 2 3; do echo "x3 old $r: $(bg --modes=3xtf32 --cfg=128x128x32w8 --shapes=4096,8192,8191x8193x8190 --copt=-fno-wgmma-unmasked-rounding --copt=-fno-wgmma-x3-rest-test)"; echo "x3 unm $r: $(bg --modes=3xtf32 --cfg=128x128x32w8 --shapes=4096,8192,8191x8193x8190 --copt=-fno-wgmma-x3-rest-test)"; done; for r in 1 2; do echo "odd def $r: $(bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --shapes=8191x8193x8190)"; echo "odd tmastore $r: $(bg --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --shapes=8191x8193x8190 --copt=-fwgmma-tma-store)"; done
# output (TFLOP/s; shapes 4096³, 8192³, 8191x8193x8190):
# x3 old 1: 3xtf32 102.1  3xtf32 97.8  3xtf32 95.4
# x3 unm 1: 3xtf32 102.6  3xtf32 100.0  3xtf32 93.7
# x3 old 2: 3xtf32 100.5  3xtf32 97.5  3xtf32 95.5
# x3 unm 2: 3xtf32 103.4  3xtf32 98.2  3xtf32 93.3
# x3 old 3: 3xtf32 102.2  3xtf32 100.2  3xtf32 95.2
# x3 unm 3: 3xtf32 104.4  3xtf32 100.1  3xtf32 91.4
# odd def 1: tf32-rna 339.0  tf32-rne 341.5
# odd tmastore 1: tf32-rna 338.7  tf32-rne 326.9
# odd def 2: tf32-rna 338.8  tf32-rne 330.0
# odd tmastore 2: tf32-rna 356.3  tf32-rne 327.0
