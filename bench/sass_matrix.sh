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
# the benchmark's own kernels (bench_gemm --source)
bench=${BENCH_GEMM:-$(dirname "$2")/bench/bench_gemm}
[ -x "$bench" ] || { echo "sass_matrix: no bench_gemm at $bench (set BENCH_GEMM)" >&2; exit 2; }
"$bench" --source=f32 --cfg=128x256x32w8g8 > "$tmp/g256.tir" &&
  "$bench" --source=f32 --cfg=128x128x32w8g8 > "$tmp/g128.tir" &&
  "$bench" --source=f32 --cfg=128x128x32w8 > "$tmp/p128.tir" &&
  "$bench" --source=bf16 --cfg-bf16=128x256x64w8 > "$tmp/b256.tir" || exit 2
rc=0
for f in g256 g128 p128 b256; do
  precisions="tf32-rna tf32-rne tf32-trunc 3xtf32 ieee"
  [ $f = b256 ] && precisions=bf16
  for p in $precisions; do
    for o in "" -fno-persistent; do
      popt="--precision=$p"
      [ $p = bf16 ] && popt=""
      "$1" $popt $o "$tmp/$f.tir" -o "$tmp/old.ptx" && "$2" $popt $o "$tmp/$f.tir" -o "$tmp/new.ptx" || { rc=1; continue; }
      r=$(python3 "$here/sass_loops.py" "$tmp/old.ptx" "$tmp/new.ptx") || rc=1
      echo "$f $p ${o:-default}: $(echo "$r" | sed -n 3p); $(echo "$r" | grep -c differ) K loops differ; spills $(echo "$r" | head -2 | grep -o '[0-9]* bytes spill stores' | cut -d' ' -f1 | tr '\n' ' ')"
    done
  done
done
exit $rc
