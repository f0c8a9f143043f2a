#!/usr/bin/env bash
# Two tilec builds over the benchmark's kernels, without a GPU: for each
# kernel (128x256 and 128x128 grouped, 128x128 2-D grid; f32 in every
# precision, bf16), persistent by default and with -fno-persistent, a line of
# bench/sass_loops.py's verdict: SASS size, K loops that differ, spills.
#   bench/sass_matrix.sh OLD_TILEC NEW_TILEC     (PTXAS, CUOBJDUMP: see sass_loops.py;
#       BENCH_GEMM: the bench_gemm that prints the kernels, default the one of
#       NEW_TILEC's build folder)
# Exit status 1 if any K loop differs.
set -u
[ $# -eq 2 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/kernels.sh"
bench_kernels "$tmp" "$2"
rc=0
for f in $KERNELS; do
  for popt in $(kernel_runs $f); do
    p=${popt#--precision=}
    [ "$popt" = - ] && { popt=""; p=bf16; }
    for o in "" -fno-persistent; do
      "$1" $popt $o "$tmp/$f.tir" -o "$tmp/old.ptx" && "$2" $popt $o "$tmp/$f.tir" -o "$tmp/new.ptx" || { rc=1; continue; }
      r=$(python3 "$here/sass_loops.py" "$tmp/old.ptx" "$tmp/new.ptx") || rc=1
      echo "$f $p ${o:-default}: $(echo "$r" | sed -n 3p); $(echo "$r" | grep -c differ) K loops differ; spills $(echo "$r" | head -2 | grep -o '[0-9]* bytes spill stores' | cut -d' ' -f1 | tr '\n' ' ')"
    done
  done
done
exit $rc
