# session 17, fourth device call: go3 found the persistent cluster kernel hangs on an odd number of
# programs (300x520x336 on 128x128: 15 programs); fixed (both blocks now see the added program with
# its peer's ids: the shares-B comparison was asymmetric). The same shapes, then the GPU cases.
. bench/device/env.sh
S=$SECONDS
for shape in 300x520x336 384x512x512 300x512x512; do
  out=$(timeout 12 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rne --shapes=$shape --cfg=128x128x32w8 --no-cublas \
    --copt=-fwgmma-tma-only --copt=-fwgmma-cluster --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --reps=1 --compile-runs=1 2>&1)
  echo "persistent $shape exit $? : $(echo "$out" | grep -E '^[0-9]+x.*tilec' | tail -1)"
done
TILEC_TEST_CLUSTER=only timeout 60 $B/bin/gpu_test_gemm > /tmp/t.log 2>&1; echo "t_cluster exit $?"
grep -c ": ok" /tmp/t.log; grep -v ": ok" /tmp/t.log | head; tail -2 /tmp/t.log
echo "t=$((SECONDS-S))"
