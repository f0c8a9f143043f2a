# Session 31, fourth device call (build 9e9a4a3, carry/q2.tar.xz: its libtilec_dev.so, the one
# before the no-roles fix in old/, and the reviewer's harness kt): the fix on hardware.
# kt's failing configurations (tf32-rna, -fno-wgmma-roles --stages=3, TMA, compared exactly with
# the rna-rounded inputs) with the old library and the new; gpu_test_preround (its new tiles)
# compiled and through the JIT; gpu_test_gemm's quick set with -fno-wgmma-roles --stages=3.
B=/tmp/q2; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/q2.tar.xz
export TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1 TILEC_CACHE=0
S=$SECONDS
t() { echo "== $* t=$((SECONDS-S))"; }
for lib in old bin; do
  t "kt $lib"
  for a in "128 128 8 150 100 130 0 0 2 2 0" "64 64 4 150 100 130 0 0 2 2 0" "128 128 8 1500 1000 1300 0 0 4 4 0"; do
    LD_LIBRARY_PATH=$B/$lib:$B/bin TILEC_PREROUND=0 KT_EXACT=1 timeout 30 $B/bin/kt $a tf32-rna -fno-wgmma-roles --stages=3 2>&1 | tail -1
    LD_LIBRARY_PATH=$B/$lib:$B/bin TILEC_PREROUND=0 KT_BROW=1 KT_EXACT=1 timeout 30 $B/bin/kt $a tf32-rna -fno-wgmma-roles --stages=3 2>&1 | tail -1
  done
done
export LD_LIBRARY_PATH=$B/bin
t preround; TILEC_GPU_QUICK=1 timeout 90 $B/bin/gpu_test_preround > $OUT/preround.log 2>&1; echo "rc=$?"; grep -E 'FAIL|PASS' $OUT/preround.log | tail -3
t preround-jit; TILEC_TEST_LOAD=source TILEC_GPU_QUICK=1 timeout 90 $B/bin/gpu_test_preround > $OUT/preround_src.log 2>&1; echo "rc=$?"; grep -E 'FAIL|PASS' $OUT/preround_src.log | tail -3
t gemm-noroles; TILEC_TEST_COPT="-fno-wgmma-roles --stages=3" TILEC_GPU_QUICK=1 timeout 150 $B/bin/gpu_test_gemm > $OUT/gemm_noroles.log 2>&1; echo "rc=$?"; grep -c ': ok' $OUT/gemm_noroles.log; grep -E 'FAIL|failing' $OUT/gemm_noroles.log | head -5
gzip $OUT/*.log
echo "t=$((SECONDS-S))"
