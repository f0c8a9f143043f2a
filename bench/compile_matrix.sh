#!/usr/bin/env bash
# Compile time of two tilec builds over the benchmark's kernels, without a GPU:
# for each kernel (128x256 and 128x128 grouped, 128x128 2-D grid; f32 in every
# precision, bf16), the median of 5 whole `tilec` processes and the least of
# 3 ptxas runs (with --split-compile as the runtime passes it for PTX with
# several entry points), old and new, with the entry points each PTX has.
#   bench/compile_matrix.sh OLD_TILEC NEW_TILEC [TILEC OPTION...]
#       (PTXAS: the ptxas, default the toolkit's; BENCH_GEMM: the bench_gemm that
#       prints the kernels, default the one of NEW_TILEC's build folder)
set -u
[ $# -ge 2 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
old=$1 new=$2
shift 2
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")" && pwd)/kernels.sh"
bench_kernels "$tmp" "$new"
# median of 5 runs of a command, in ms
med() { for i in 1 2 3 4 5; do s=$(date +%s%N); "$@" > /dev/null 2>&1 || { echo fail; return; }; e=$(date +%s%N); echo $(( (e - s) / 100000 )); done | sort -n | sed -n 3p | awk '{printf "%.1f", $1 / 10}'; }
least() { for i in 1 2 3; do s=$(date +%s%N); "$@" > /dev/null 2>&1 || { echo fail; return; }; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); done | sort -n | head -1; }
printf '%-26s %9s %9s %9s %9s %8s\n' kernel "old ms" "new ms" "ptxas old" "ptxas new" entries
for f in $KERNELS; do
  for popt in $(kernel_runs $f); do
    p=${popt#--precision=}
    [ "$popt" = - ] && { popt=""; p=bf16; }
    row=()
    for t in "$old" "$new"; do row+=("$(med "$t" $popt "$@" "$tmp/$f.tir" -o "$tmp/k.ptx")"); done
    for t in "$old" "$new"; do
      "$t" $popt "$@" "$tmp/$f.tir" -o "$tmp/k.ptx" 2>/dev/null
      n=$(grep -c '\.entry' "$tmp/k.ptx")
      split=""
      [ "$n" -gt 1 ] && split="--split-compile=$n"
      row+=("$(least "$ptxas" -arch=sm_90a $split "$tmp/k.ptx" -o "$tmp/k.cubin")")
    done
    printf '%-26s %9s %9s %9s %9s %8s\n' "$f $p" "${row[0]}" "${row[1]}" "${row[2]}" "${row[3]}" "$n"
  done
done
