#!/usr/bin/env bash
# Builds tilec and compiles the bundled seed kernel to PTX (printed), then
# checks it with ptxas when the CUDA toolkit is present.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTILEC_TESTS=OFF ${CUDA_INCLUDE_DIR:+-DCUDA_INCLUDE_DIR=$CUDA_INCLUDE_DIR} >/dev/null
cmake --build build -j"$(nproc)" --target tilec >/dev/null
./build/tilec --arch=sm_90a --precision=tf32-rna examples/seed.tir -o build/seed.ptx
cat build/seed.ptx
if [ -x /usr/local/cuda/bin/ptxas ]; then
  /usr/local/cuda/bin/ptxas -arch=sm_90a build/seed.ptx -o build/seed.cubin
  echo "// ptxas -arch=sm_90a accepted build/seed.ptx" >&2
fi
