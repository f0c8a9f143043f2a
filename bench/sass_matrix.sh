#!/usr/bin/env bash
# Two tilec builds over the benchmark's kernels, without a GPU: for each
# kernel (128x256 and 128x128 grouped, 128x128 2-D grid; f32 in every
# precision, bf16), persistent by default and with -fno-persistent, a line of
# bench/sass_loops.py's verdict: SASS size, K loops that differ, spills.
#   bench/sass_matrix.sh OLD_TILEC NEW_TILEC     (PTXAS, CUOBJDUMP: see sass_loops.py)
# Exit status 1 if any K loop differs.
set -u
[ $# -eq 2 ] || { sed -n '2,7p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gemm BM BN BK ELEM GROUP: the GEMM of bench/bench_compile.c's bench_gemm_source
gemm() {
  local order="  %pm = program_id 0
  %pn = program_id 1"
  [ "$5" -gt 0 ] && order="  %p = program_id 0
  %tm = cdiv %M, $1
  %tn = cdiv %N, $2
  %per = mul %tn, $5
  %grp = div %p, %per
  %first = mul %grp, $5
  %left = sub %tm, %first
  %gm = min %left, $5
  %in = rem %p, %per
  %im = rem %in, %gm
  %pm = add %first, %im
  %pn = div %in, %gm"
  cat <<TIR
kernel @gemm(%A: ptr<$4>, %B: ptr<$4>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32,
             %lda: i32, %ldb: i32, %ldc: i32) warps(8) {
$order
  %m0 = mul %pm, $1
  %n0 = mul %pn, $2
  %va = view %A [%M, %K] strides [%lda, 1]
  %vb = view %B [%K, %N] strides [%ldb, 1]
  %vc = view %C [%M, %N] strides [%ldc, 1]
  %z = zeros : tile<$1x$2xf32>
  %acc = for %k = 0 to %K step $3 iter(%c = %z) {
    %a = load %va[%m0, %k] : tile<$1x$3x$4>
    %b = load %vb[%k, %n0] : tile<$3x$2x$4>
    %d = dot %a, %b, %c : tile<$1x$2xf32>
    yield %d
  }
  store %acc, %vc[%m0, %n0]
}
TIR
}
gemm 128 256 32 f32 8 > "$tmp/g256.tir"
gemm 128 128 32 f32 8 > "$tmp/g128.tir"
gemm 128 128 32 f32 0 > "$tmp/p128.tir"
gemm 128 256 64 bf16 0 > "$tmp/b256.tir"
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
