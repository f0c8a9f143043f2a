#!/usr/bin/env bash
# -frole-functions against the kernel whole, without a GPU: for the
# benchmark's persistent f32 kernels (128x256 and 128x128 grouped, every
# precision the split applies to, the $rounded entry where there is one)
# and three launches (aligned with tensor maps, without, odd shape and row
# strides), scripts/hosttrace.py compares the consumers' threads of the
# split entry with the whole kernel's, and the producers' function run by
# the producers' threads with the whole kernel's producers. "the same": the
# split lowers each role to the same effects in the same order (the PTX
# splice that puts the producers back is checked by unit/test_splice and
# ptxas, not here).
#   bench/trace_roles.sh TILEC     (BENCH_GEMM as in trace_matrix.sh)
# Exit status 1 if any trace differs.
set -u
[ $# -eq 1 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
T=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/kernels.sh"
bench_kernels "$tmp" "$T"
ht() { python3 "$here/../scripts/hosttrace.py" --tilec "$T" --tilec "$T -frole-functions" "$@"; }
rc=0
for f in g256 g128; do # warps(8): consumers are threads 0-255, producers 256-511
  for p in tf32-rna tf32-rne tf32-trunc 3xtf32 ieee; do
    if ! "$T" -frole-functions --precision=$p --emit=llvm "$tmp/$f.tir" | grep -q "its producers' function"; then
      echo "$f $p: not split (no pipeline with copies of its own)"
      continue
    fi
    entries=gemm
    "$T" -frole-functions --precision=$p "$tmp/$f.tir" | grep -q '^\.visible \.entry gemm\$rounded(' &&
      entries='gemm gemm$rounded'
    for e in $entries; do
      fl=""
      [ "$e" != gemm ] && fl="flags=0x30003"
      for L in "args=256,512,160,160,512,512 grid=8 blocks=2 $fl" 'args=256,512,160,160,512,512 grid=8 blocks=2 flags=0' \
               'args=300,520,136,137,521,523 grid=12 blocks=2 flags=0'; do
        c=$(ht --entry "$e" --tids 0-255 --launch "$L" "$tmp/$f.tir" -- --precision=$p 2>&1 | tail -1)
        q=$(ht --entry "$e" --entry "$e\$producers" --tids 256-511 --launch "$L" "$tmp/$f.tir" -- --precision=$p 2>&1 | tail -1)
        for r in "consumers: $c" "producers: $q"; do
          case "$r" in *"the same") ;; *) rc=1; echo "$f $p $e [$L] $r" | cut -c1-400 ;; esac
        done
      done
      echo "$f $p $e: consumers and producers traced on 3 launches"
    done
  done
done
[ $rc = 0 ] && echo "all the same"
exit $rc
