# Session 38, call 2 (inline, the H100 still warm after go1.sh): masked ("old": neither
# -fwgmma-unmasked-rounding nor the rest test) against unmasked (the rest test off), three rounds.
. bench/device/env.sh >/dev/null; bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=3xtf32 --cfg=128x128x32w8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192,8191x8193x8190 "$@" 2>&1 | grep -E '^ *tilec' | tr -s ' ' | cut -d' ' -f7,8,11; }; for r in 1 2 3; do echo "old $r: $(bg --copt=-fno-wgmma-unmasked-rounding --copt=-fno-wgmma-x3-rest-test | tr '\n' ' ')"; echo "unm $r: $(bg --copt=-fno-wgmma-x3-rest-test | tr '\n' ' ')"; done
# output (the cut kept "ms", the TFLOP/s figure, "err"; shapes 4096³, 8192³, 8191x8193x8190):
# old 1: ms 102.2 err ms 98.0 err ms 96.0 err
# unm 1: ms 104.3 err ms 101.5 err ms 93.9 err
# old 2: ms 102.0 err ms 100.0 err ms 95.2 err
# unm 2: ms 102.6 err ms 102.3 err ms 93.6 err
# old 3: ms 100.7 err ms 98.2 err ms 96.2 err
# unm 3: ms 106.5 err ms 100.4 err ms 92.8 err
