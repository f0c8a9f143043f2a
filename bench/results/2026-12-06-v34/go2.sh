# Session 31, second device call (the same machine, warm, right after go1.sh; carry/q1.tar.xz):
# B K-major before this change (-fno-wgmma-kmajor-b: the swapped product's element copies of B)
# against now, and now with -fwgmma-tma-direct; one process each, cuBLAS TF32 (TN) in each.
B=/tmp/q1; export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
for c in --copt=-fno-wgmma-kmajor-b "" --copt=-fwgmma-tma-direct; do echo "== kmajor $c"; timeout 80 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=4096,8192 --b-kmajor $c 2>&1 | tee $OUT/b_$(echo $c | tr -dc a-z).log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '; done
