#!/usr/bin/env bash
# One device call's worth of checking and timing while working on the
# GEMM lowering (bench/NOTES.md): the GPU GEMM tests, then the main kernels
# at two sizes against cuBLAS, then (NCU=1) an ncu profile of one kernel
# with per-instruction stall samples. Every step has a timeout, so a kernel
# that hangs (a pipeline deadlock) fails the step instead of eating the
# device lease. Figures for BENCHMARKS.md come from bench/run.sh, not this.
#
# usage: bench/quick.sh BUILD_DIR OUT_DIR     (exit 0 all passed, 77 no GPU, else 1)
#   BUILD_DIR  holds tilec, bench/bench_gemm and tests/gpu_test_gemm (or bin/)
# Environment (optional):
#   SHAPES  (default 4096,8192)   MODES (default tf32-rna,3xtf32)
#   CFG     (default 128x128x32w8,128x256x32w8)   ARCHS (default sm_90a)
#   COPT    more compile options for tilec's kernels, space-separated
#           (e.g. "-fno-wgmma-roles -fno-wgmma-swapped"; the GPU tests take them too)
#   NCU=1   profile the first tilec kernel of MODES/CFG at the first shape
set -uo pipefail
if [ $# -ne 2 ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
find_bin() { for p in "$build/$1" "$build/bin/$(basename "$1")"; do [ -x "$p" ] && { echo "$p"; return; }; done; }
bench=$(find_bin bench/bench_gemm)
test=$(find_bin tests/gpu_test_gemm)
tilec=$(find_bin tilec)
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
export CUDA_CACHE_DISABLE=1
unset NVIDIA_TF32_OVERRIDE
rc=0

if [ -n "$test" ]; then
    TILEC_TEST_COPT="${COPT:-}" timeout 120 "$test" >"$out/test.log" 2>&1
    t=$?
    echo "gpu_test_gemm: exit $t$([ $t -eq 124 ] && echo ' (timed out: a hang)')"
    grep -v ': ok$' "$out/test.log" | tail -5
    [ $t -eq 0 ] || [ $t -eq 77 ] || rc=1
fi

args=(--shapes="${SHAPES:-4096,8192}" --modes="${MODES:-tf32-rna,3xtf32}" --archs="${ARCHS:-sm_90a}"
      --cfg="${CFG:-128x128x32w8,128x256x32w8}" --target-ms=50 --warmup-ms=30 --compile-runs=1)
for o in ${COPT:-}; do args+=(--copt="$o"); done
timeout 240 "$bench" --tilec="$tilec" "${args[@]}" --out="$out/quick.csv" >"$out/bench.log" 2>&1
t=$?
echo "bench_gemm: exit $t$([ $t -eq 124 ] && echo ' (timed out: a hang)')"
grep -E '^[0-9]+x' "$out/bench.log"
if [ $t -eq 77 ]; then
    echo "no GPU: nothing timed"
    exit 77
fi
[ $t -eq 0 ] || rc=1

if [ "${NCU:-0}" = 1 ]; then
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    first_shape=${SHAPES:-4096}; first_shape=${first_shape%%,*}
    mode=${MODES:-tf32-rna}; mode=${mode%%,*}
    cfg=${CFG:-128x128x32w8}; cfg=${cfg%%,*}
    timeout 200 "$ncu" --clock-control none -k regex:gemm -c 1 --section SpeedOfLight --section WarpStateStats \
        --section SourceCounters -o "$out/prof" "$bench" --shapes="$first_shape" --modes="$mode" \
        --archs="${ARCHS:-sm_90a}" --cfg="$cfg" --no-cublas --reps=1 --target-ms=1 --warmup-ms=1 \
        --batch-ms=0.1 $(for o in ${COPT:-}; do printf -- '--copt=%s ' "$o"; done) >"$out/ncu.log" 2>&1 || rc=1
    "$ncu" --import "$out/prof.ncu-rep" --page source --csv --print-source sass >"$out/sass_stalls.csv" 2>&1 || true
    "$ncu" --import "$out/prof.ncu-rep" --page details >"$out/ncu_details.txt" 2>&1 || true
    grep -E 'Throughput|Issue Slots|Warp Cycles' "$out/ncu_details.txt" | head -12
fi
exit $rc
