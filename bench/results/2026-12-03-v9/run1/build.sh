#!/bin/sh
set -e
cd "$(dirname "$0")"
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90a -o probe probe.cu
