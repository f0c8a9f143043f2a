#!/usr/bin/env bash
# scripts/hosttrace.py on examples/matmul.tir, so that the tool that checks
# lowering refactors without a GPU keeps working: one build against itself
# must give the same traces (and not empty ones: a wgmma and fragment loads
# in them), and against itself with -fno-wgmma-k-overlap (other wgmma groups)
# must not. And an exp kernel's lowered IR, run on the host, stores
# ir/exp_f32.h's bits for every made-up input (exp_trace_check), on both
# targets. Skips (77) without llc-19 or a C compiler.
#   tests/hosttrace-check.sh TILEC EXP_TRACE_CHECK
set -u
tilec=$1 check=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v llc-19 >/dev/null && command -v cc >/dev/null && command -v python3 >/dev/null ||
  { echo "SKIP: llc-19, cc or python3 missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
launch='args=200,136,72,72,136,136 blocks=2,2 flags=0'
ht() { python3 "$here/../scripts/hosttrace.py" --entry matmul --launch "$launch" --keep "$tmp" "$@"; }
ht --tilec "$tilec" "$here/../examples/matmul.tir" -- -fno-persistent || exit 1
n=$(grep -c 'wgmma.mma_async' "$tmp/launch0.build0.trace")
l=$(grep -c '^ ld <' "$tmp/launch0.build0.trace")
[ "$n" -gt 0 ] && [ "$l" -gt 0 ] || { echo "FAIL: $n wgmma and $l shared loads traced"; exit 1; }
out=$(ht --tilec "$tilec" --tilec "$tilec" "$here/../examples/matmul.tir" -- -fno-persistent) ||
  { echo "FAIL: a build against itself: $out"; exit 1; }
echo "$out"
echo "$out" | grep -q ': the same$' || { echo "FAIL: not 'the same'"; exit 1; }
out=$(ht --tilec "$tilec" --tilec "$tilec -fno-wgmma-k-overlap" "$here/../examples/matmul.tir" -- -fno-persistent)
rc=$?
echo "$out"
[ $rc -eq 1 ] && echo "$out" | grep -q 'line [0-9]' || { echo "FAIL: -fno-wgmma-k-overlap not told apart (exit $rc)"; exit 1; }
printf 'kernel @k(%%x: ptr<f32>, %%y: ptr<f32>) {\n  %%v = view %%x [64, 64] strides [64, 1]\n  %%w = view %%y [64, 64] strides [64, 1]\n  %%a = load %%v[0, 0] : tile<64x64xf32>\n  %%e = exp %%a\n  store %%e, %%w[0, 0]\n}\n' > "$tmp/exp.tir"
for arch in sm_80 sm_90a; do
  python3 "$here/../scripts/hosttrace.py" --tilec "$tilec" --entry k --launch 'args= blocks=1' --keep "$tmp/exp" \
    "$tmp/exp.tir" -- --arch=$arch > /dev/null || exit 1
  "$check" "$tmp/exp/launch0.build0.trace" || { echo "FAIL: exp's lowering ($arch) is not tir_exp_f32"; exit 1; }
done
echo "PASS: $n wgmma statements and $l shared loads traced; the option told apart; exp's lowering is tir_exp_f32"
