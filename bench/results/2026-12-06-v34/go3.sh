# Session 31, third device call (warm, after go2.sh; carry/q1.tar.xz): B K-major at 8192³, the odd
# shape (B^T staged: its rows of 8190 f32 are not 16-byte multiples) and small K, 128x256 and
# 128x128, one process, cuBLAS TF32 (TN) in it.
B=/tmp/q1; export LD_LIBRARY_PATH=$B/bin TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
timeout 120 $B/bin/bench_gemm --archs=sm_90a --modes=tf32-rna,tf32-rne --cfg=128x256x32w8g8,128x128x32w8g8 --target-ms=30 --warmup-ms=20 --compile-runs=1 --shapes=8192,8191x8193x8190,4096x4096x64 --b-kmajor 2>&1 | tee $OUT/b_odd.log | grep -E '^ *(tilec|cublas tf32)' | tr -s ' '
