# NOT RUN (session 17's device time ran out): for the next session's first call (about 8 minutes).
# session 17, fourth device call: go3 found the persistent cluster kernel hangs on an odd number of
# programs (300x520x336 on 128x128: 15 programs); fixed (both blocks now see the added program with
# its peer's ids: the shares-B comparison was asymmetric). The same shapes, then the GPU cases.
. bench/device/env.sh
S=$SECONDS
# also tf32-rna one program a block: gpu_test_gemm's first cluster case (tf32-rna, 300x520x336, 3 x 5 grid,
# -fno-persistent) printed nothing in 120 s in go2, while bench_gemm's tf32-rne of that shape passed in go3
for ms in "tf32-rne 128x128x32w8 300x520x336" "tf32-rne 128x128x32w8 384x512x512" "tf32-rne 128x128x32w8 300x512x512" \
          "tf32-rna 128x128x32w8n 300x520x336" "tf32-rna 128x128x32w8n 384x512x512" "tf32-rna 128x128x32w8n 256x512x512" \
          "tf32-rna 128x128x32w8 300x520x336"; do
  set -- $ms; mode=$1 cfg=$2 shape=$3
  out=$(timeout 12 $B/bin/bench_gemm --archs=sm_90a --modes=$mode --shapes=$shape --cfg=$cfg --no-cublas \
    --copt=-fwgmma-tma-only --copt=-fwgmma-cluster --target-ms=1 --warmup-ms=1 --batch-ms=0.1 --reps=1 --compile-runs=1 2>&1)
  echo "$mode $cfg $shape exit $? : $(echo "$out" | grep -E '^[0-9]+x.*tilec' | tail -1)"
done
TILEC_TEST_CLUSTER=only timeout 120 $B/bin/gpu_test_gemm > /tmp/t.log 2>&1; echo "t_cluster exit $?"
grep -c ": ok" /tmp/t.log; grep -v ": ok" /tmp/t.log | head; tail -2 /tmp/t.log
# ieee: 8 x 16 a thread on 128x128 with one consumer warpgroup (4 warps; 3 stages: two blocks an SM), which
# go1's TILEC_TEST_COPT=-fwgmma-ffma-wide gpu_test_gemm already ran correctly (its 128x128 w4 tile), against
# the default 128x128 w8 (8 x 8), cuBLAS SGEMM in the same process
timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --shapes=4096,8192 --cfg=128x128x32w8,128x128x32w4,128x128x32w4s3 \
  --copt=-fwgmma-ffma-wide --target-ms=30 --warmup-ms=20 --compile-runs=1 2>&1 | grep -E '^[0-9]+x.*(sgemm|ieee)'
TILEC_TEST_CLUSTER=only timeout 150 compute-sanitizer --tool synccheck $B/bin/gpu_test_gemm > /tmp/sync.log 2>&1
echo "synccheck exit $?"; grep -E "ERROR SUMMARY|failing case" /tmp/sync.log | tail -2
echo "t=$((SECONDS-S))"
