#!/usr/bin/env bash
# Reproduces the GEMM benchmark (BENCHMARKS.md) on a GPU machine: tilec and
# cuBLAS (bench_gemm), then Triton and cuBLAS-through-PyTorch
# (triton_gemm.py), then the plot. Builds nothing.
#
# usage: bench/run.sh BUILD_DIR OUT_DIR
#   BUILD_DIR  a tilec build holding tilec and bench/bench_gemm
#   OUT_DIR    gets tilec_gemm.{csv,log}, tilec_compile.csv,
#              triton_gemm.{csv,log}, triton_compile.csv, gemm_tflops.svg
# Environment (optional):
#   SHAPES       shapes for both programs (e.g. 4096,8192x8192x64)
#   BENCH_ARGS   more options for bench_gemm (see bench_gemm --help)
#   TRITON_ARGS  more options for triton_gemm.py
#   SKIP_TRITON=1  only bench_gemm
# Exit status: 0 done, 77 no GPU, else the first failing step's status.
set -euo pipefail

if [ $# -ne 2 ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

bench="$build/bench/bench_gemm"
[ -x "$bench" ] || { echo "run.sh: no $bench (configure with the bench subdirectory and build it)" >&2; exit 1; }
shapes=()
[ -n "${SHAPES:-}" ] && shapes=("--shapes=$SHAPES")

# cuBLAS is dlopen'ed: the toolkit's copy where the loader does not know it
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
# SGEMM must stay fp32; the driver's JIT cache would make cold loads warm
unset NVIDIA_TF32_OVERRIDE
export CUDA_CACHE_DISABLE=1

log="$out/tilec_gemm.log"
{
    echo "# $(date -u '+%Y-%m-%dT%H:%M:%SZ') $(uname -n)"
    # the card as found (read only: clocks, power, temperature)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu \
        --format=csv 2>&1 || true
} >"$log"
rc=0
# shellcheck disable=SC2086
"$bench" --tilec="$build/tilec" "${shapes[@]}" --out="$out/tilec_gemm.csv" --compile-out="$out/tilec_compile.csv" \
    ${BENCH_ARGS:-} 2>&1 | tee -a "$log" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "run.sh: bench_gemm exited with $rc" >&2
    exit "$rc"
fi

if [ "${SKIP_TRITON:-0}" != 1 ]; then
    # shellcheck disable=SC2086
    PYTHONUNBUFFERED=1 python3 "$here/triton_gemm.py" "${shapes[@]}" --out="$out/triton_gemm.csv" \
        --compile-out="$out/triton_compile.csv" ${TRITON_ARGS:-} 2>&1 | tee "$out/triton_gemm.log" || rc=$?
    [ "$rc" -eq 0 ] || echo "run.sh: triton_gemm.py exited with $rc" >&2
fi

csvs=("$out/tilec_gemm.csv")
[ -f "$out/triton_gemm.csv" ] && csvs+=("$out/triton_gemm.csv")
python3 "$here/plot.py" "${csvs[@]}" -o "$out/gemm_tflops.svg" || echo "run.sh: no plot (matplotlib?)" >&2
exit "$rc"
