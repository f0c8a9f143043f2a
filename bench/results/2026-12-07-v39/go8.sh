# Session 36, call 8: ieee with a K-major B, B^T's rows transposed in shared memory into a row-major
# B's panels by the producer warpgroup that rounds nothing (-fwgmma-ffma-transpose-b, the new
# default), so that the FMA consumers run the row-major kernel's loop (go4's profile: with B^T's
# rows read directly, 41% of the FMAs have a register bank conflict against 20%, and ncu's dispatch
# stalls on FMAs are +35%). (1) gpu_test_gemm's quick set (the 62 ieee K-major cases take the new
# path), (2) ieee 128x128 K-major B: new / -fno-wgmma-ffma-transpose-b / row-major B, two
# interleaved rounds, cuBLAS SGEMM in each process. Predicted: the row-major speed within ~2%
# (47-49 TFLOP/s on this H100 kind, against 43-44). Needs carry at the commit that added the option.
. bench/device/env.sh
S=$SECONDS; R=$OUT
t() { echo "== $* t=$((SECONDS-S))"; }
t gemm; TILEC_GPU_QUICK=1 timeout 200 $B/bin/gpu_test_gemm > $R/gemm.log 2>&1
echo "rc=$?"; grep -c ': ok' $R/gemm.log; grep -E 'FAIL|failing|timed out' $R/gemm.log | head -5
bg() { timeout 60 $B/bin/bench_gemm --archs=sm_90a --modes=ieee --cfg=128x128x32w8 --target-ms=40 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192 "$@"; }
show() { grep -E '^\[|^ *(tilec|cublas sgemm)' | tr -s ' ' | cut -c1-100; }
for r in 1 2; do
  t "round $r bk transposed"; bg --b-kmajor > $R/bt_r$r.log 2>&1; show < $R/bt_r$r.log
  t "round $r bk rows"; bg --b-kmajor --copt=-fno-wgmma-ffma-transpose-b > $R/bk_r$r.log 2>&1; show < $R/bk_r$r.log
  t "round $r row-major"; bg > $R/rm_r$r.log 2>&1; show < $R/rm_r$r.log
done
gzip $R/*.log
echo "t=$((SECONDS-S))"
