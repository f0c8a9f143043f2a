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
