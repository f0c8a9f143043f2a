#!/usr/bin/env bash
# Two tilec builds over the benchmark's kernels, without a GPU: for each
# kernel (128x256 and 128x128 grouped, 128x128 2-D grid; f32 in every
# precision, bf16), persistent by default and with -fno-persistent, and its
# $rounded entry where it has one (tf32-rna), scripts/hosttrace.py's verdict on three
# launches: aligned with tensor maps, aligned without (flags 0: the copy
# loops), and an odd shape with odd row strides (edge tiles, checked stores).
# "the same" on a line: every thread of every block did the same loads,
# stores and asm statements with the same operands in the same order.
#   bench/trace_matrix.sh OLD_TILEC NEW_TILEC [TILEC_OPTION...]
#       (BENCH_GEMM: the bench_gemm that prints the kernels, default the one
#       of NEW_TILEC's build folder)
# Exit status 1 if any trace differs.
set -u
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
old=$1 new=$2
shift 2
extra=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/kernels.sh"
bench_kernels "$tmp" "$new"
cdiv() { echo $((($1 + $2 - 1) / $2)); }
rc=0
for f in $KERNELS; do
  case $f in
    g256) bm=128 bn=256 bk=32 grouped=1 ;;
    g128) bm=128 bn=128 bk=32 grouped=1 ;;
    p128) bm=128 bn=128 bk=32 grouped=0 ;;
    b256) bm=128 bn=256 bk=64 grouped=0 ;;
  esac
  for popt in $(kernel_runs $f); do
    p=${popt#--precision=}
    [ "$popt" = - ] && { popt=""; p=bf16; }
    for o in "" -fno-persistent; do
      entries=gemm # and the entry for rounded views where the kernel has one
      "$new" $popt $o "${extra[@]}" "$tmp/$f.tir" 2>/dev/null | grep -q '^\.visible \.entry gemm\$rounded(' &&
        entries='gemm gemm$rounded'
      for e in $entries; do
        launches=()
        # aligned, five K steps (the 4-stage ring wraps), with and without
        # tensor maps; odd M, N, K and row strides, without
        for shape in "256 512 $((5 * bk)) $((5 * bk)) 512 512 -" "256 512 $((5 * bk)) $((5 * bk)) 512 512 0" \
                     "300 520 $((4 * bk + 8)) $((4 * bk + 9)) 521 523 0"; do
          set -- $shape
          tm=$(cdiv $1 $bm) tn=$(cdiv $2 $bn)
          if [ -z "$o" ]; then
            [ $grouped = 1 ] && sched="grid=$((tm * tn)) blocks=2" || sched="grid=$tm,$tn blocks=2"
          else
            [ $grouped = 1 ] && sched="blocks=$((tm * tn))" || sched="blocks=$tm,$tn"
          fi
          fl=""
          [ "$7" = 0 ] && fl="flags=0"
          [ "$e" != gemm ] && [ -z "$fl" ] && fl="flags=0x30003" # views rounded: what $rounded is launched with
          launches+=(--launch "args=$1,$2,$3,$4,$5,$6 $sched $fl")
        done
        r=$(python3 "$here/../scripts/hosttrace.py" --tilec "$old" --tilec "$new" --entry "$e" "${launches[@]}" \
              "$tmp/$f.tir" -- $popt $o "${extra[@]}" 2>&1) || rc=1
        echo "$f $p ${o:-default} $e: $(echo "$r" | grep -c ': the same$')/3 the same"
        echo "$r" | grep -v ': the same$' | sed 's/^/    /'
      done
    done
  done
done
exit $rc
