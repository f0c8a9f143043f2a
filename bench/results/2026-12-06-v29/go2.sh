# Session 26, second device call (T seconds at most, default 150): go1.sh's full run on the H200 had
# the JIT cold row at 415.8 ms (the H100's in session 25: 256 ms). Where it goes on this machine:
# 1. jit-cold with and without the store (bench_gemm --compile-only, 5 runs each), the CPUs;
# 2. ptxas alone on the JIT's PTX (tilec with -fwgmma-tma-store -fwgmma-tma-only, as the JIT adds),
#    with --split-compile 0 (one thread per CPU) and 1, and tilec's own time (--time).
# carry ["carry/f.tar.xz"] as go1.sh.
T=${T:-150}
B=/tmp/b; rm -rf $B; mkdir -p $B; tar -C $B -xJf carry/f.tar.xz
export LD_LIBRARY_PATH=$B/bin:/usr/local/cuda/lib64 TILEC_SOURCE_DIR=$PWD PATH=/usr/local/cuda/bin:$PATH CUDA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader; nproc
lscpu | grep -E 'Model name|MHz' | head -3
S=$SECONDS
for o in "" -fno-wgmma-tma-store; do
  timeout 40 $B/bin/bench_gemm --compile-only --cfg=128x256x32w8g8 --modes=tf32-rna --archs=sm_90a --compile-runs=5 \
    ${o:+--copt=$o} 2>&1 | grep -E 'jit-cold|^compile |^process' | sed "s/^/${o:-default}: /"
done
sed 's/128x128xf32/128x256xf32/g; s/32x128xf32/32x256xf32/; s/%n0 = mul %pn, 128/%n0 = mul %pn, 256/' examples/matmul.tir > /tmp/mm256.tir
for o in "-fwgmma-tma-store -fwgmma-tma-only" ""; do
  $B/bin/tilec_static /tmp/mm256.tir --arch=sm_90a $o --time -o /tmp/k.ptx 2>&1 | tail -1
  wc -l < /tmp/k.ptx; grep -c '^.entry\|^\.visible .entry' /tmp/k.ptx
  for sc in 0 1; do
    for r in 1 2; do /usr/bin/time -f "ptxas ${o:-full} split-compile $sc: %e s %U user" ptxas -arch=sm_90a --split-compile $sc /tmp/k.ptx -o /tmp/k.cubin; done
  done
done 2>&1
echo "t=$((SECONDS-S))"
