# session 17, third device call: which shapes hang -fwgmma-cluster (go2: gpu_test_gemm's first cluster
# case, 300x520x336 on a 3 x 5 grid, printed nothing in 120 s; the benchmark's even grids ran).
# bench_gemm checks each result against fp64; every run under a timeout.
. bench/device/env.sh
S=$SECONDS
for cs in "128x128x32w8n 256x512x512 384x512x512 512x520x512 512x512x336 300x512x512 300x520x336" \
          "128x128x32w8 384x512x512 300x520x336 256x512x512"; do
  set -- $cs; cfg=$1; shift
  for shape in "$@"; do
    out=$(timeout 12 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne --shapes=$shape --cfg=$cfg --no-cublas \
      --copt=-fwgmma-tma-only --copt=-fwgmma-cluster --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --reps=1 --compile-runs=1 2>&1)
    echo "$cfg $shape exit $? : $(echo "$out" | grep -E '^[0-9]+x.*tilec' | tail -1)"
  done
done
echo "t=$((SECONDS-S))"
