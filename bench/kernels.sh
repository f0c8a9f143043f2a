# Sourced by bench/sass_matrix.sh and bench/compile_matrix.sh: the
# benchmark's own kernels (bench_gemm --source), the list they loop over.
#   bench_kernels DIR NEW_TILEC   writes DIR/g256.tir (128x256 grouped),
#       g128.tir (128x128 grouped), p128.tir (128x128, 2-D grid) and
#       b256.tir (bf16 128x256) with $BENCH_GEMM, default the bench_gemm of
#       NEW_TILEC's build folder; exits 2 where it cannot
#   KERNELS                       those four names
#   kernel_runs NAME              "--precision=P" for each f32 precision,
#                                 or "-" for bf16's (no precision option)
KERNELS="g256 g128 p128 b256"
bench_kernels() {
  local bench=${BENCH_GEMM:-$(dirname "$2")/bench/bench_gemm}
  [ -x "$bench" ] || { echo "$(basename "$0"): no bench_gemm at $bench (set BENCH_GEMM)" >&2; exit 2; }
  "$bench" --source=f32 --cfg=128x256x32w8g8 > "$1/g256.tir" &&
    "$bench" --source=f32 --cfg=128x128x32w8g8 > "$1/g128.tir" &&
    "$bench" --source=f32 --cfg=128x128x32w8 > "$1/p128.tir" &&
    "$bench" --source=bf16 --cfg-bf16=128x256x64w8 > "$1/b256.tir" || exit 2
}
kernel_runs() {
  if [ "$1" = b256 ]; then echo -; else printf -- '--precision=%s\n' tf32-rna tf32-rne tf32-trunc 3xtf32 ieee; fi
}
