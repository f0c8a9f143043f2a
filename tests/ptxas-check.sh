#!/usr/bin/env bash
# Compiles a .tir file for one target and has ptxas assemble the PTX.
# Usage: ptxas-check.sh TILEC FILE.tir ARCH PTXAS   (exit 77 without ptxas)
set -eu
tilec=$1 file=$2 arch=$3 ptxas=${4:-}
if [ -z "$ptxas" ]; then
  echo "SKIP: ptxas not found (install the CUDA toolkit to validate PTX)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tilec" --arch="$arch" "$file" -o "$tmp/k.ptx"
"$ptxas" -arch="$arch" -v "$tmp/k.ptx" -o "$tmp/k.cubin" 2>&1 | grep -E 'registers|error|spill' || true
test -s "$tmp/k.cubin"
echo "PASS: ptxas -arch=$arch accepts $(basename "$file")"
