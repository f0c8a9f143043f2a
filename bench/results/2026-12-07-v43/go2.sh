# Session 40, call 2 (any GPU): go1.sh's timing half again (there `timeout` was handed the shell
# functions old/new, which it cannot run: every row came back empty). Old (239f99d, session 39's
# start) against new, two interleaved rounds: sm_80 (the mma.sync lowering: K loops 70-100 SASS
# instructions shorter, fewer spills) and sm_90a (K loops unchanged, the epilogue's checked stores
# shorter; the odd shape takes them on every tile). TFLOP/s at 4096³ and 8191x8193x8190, in the
# order of the modes.
# Predicted: sm_80 the same or a few percent faster; sm_90a within noise.
. bench/device/env.sh
S=$SECONDS; LIMIT=${LIMIT:-560}
bg() {
  local v=$1; shift
  local cmd=("$B/bin/bench_gemm")
  [ "$v" = old ] && cmd=(env "LD_LIBRARY_PATH=$OLD_B:$LD_LIBRARY_PATH" "$OLD_B/bench_gemm")
  timeout 80 "${cmd[@]}" --no-cublas --target-ms=25 --warmup-ms=15 --compile-runs=1 --shapes=4096,8191x8193x8190 "$@" 2>&1 |
    grep -E '^ *tilec' | awk '{for(i=1;i<=NF;i++) if($i=="TFLOP/s") printf "%s  ", $(i-1)}'
}
for r in 1 2; do
  for v in old new; do
    left=$((LIMIT-(SECONDS-S))); [ $left -lt 60 ] && break 2
    echo "$v $r sm_80 rna,rne,3x,ieee 128x128: $(bg $v --archs=sm_80 --modes=tf32-rna,tf32-rne,3xtf32,ieee --cfg=128x128x32w8)"
    echo "$v $r sm_90a rna,rne 128x256 / 3x,ieee 128x128: $(bg $v --archs=sm_90a --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8) / $(bg $v --archs=sm_90a --modes=3xtf32,ieee --cfg=128x128x32w8)"
    echo "  t=$((SECONDS-S))"
  done
done
# output (H100 80GB HBM3, build c8e2443 + old 239f99d). bench_gemm prints each shape's modes in
# the order ieee, tf32-rna, tf32-rne, 3xtf32, so each row is [4096³: ...] [8191x8193x8190: ...]:
# old 1 sm_80 rna,rne,3x,ieee 128x128: 18.3  37.9  38.5  16.8  18.0  37.3  36.8  16.6
# old 1 sm_90a rna,rne 128x256 / 3x,ieee 128x128: 316.5  391.0  341.6  328.9   / 47.7  110.7  47.5  96.0
# new 1 sm_80 rna,rne,3x,ieee 128x128: 19.4  36.7  39.4  17.0  19.2  35.9  37.6  16.9
# new 1 sm_90a rna,rne 128x256 / 3x,ieee 128x128: 316.0  392.5  358.1  321.4   / 48.0  108.8  47.1  96.4
# old 2 sm_80 rna,rne,3x,ieee 128x128: 18.2  37.6  38.5  16.7  17.9  37.3  36.8  16.6
# old 2 sm_90a rna,rne 128x256 / 3x,ieee 128x128: 316.0  390.6  341.8  353.9   / 47.8  108.8  46.9  95.2
# new 2 sm_80 rna,rne,3x,ieee 128x128: 19.4  37.5  39.4  17.0  19.1  35.9  37.6  16.9
# new 2 sm_90a rna,rne 128x256 / 3x,ieee 128x128: 316.1  387.1  362.6  327.4   / 48.0  107.0  47.2  95.1
