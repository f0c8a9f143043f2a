# Sourced on the device machine by a device call's command (bench/device/pack.sh
# made carry/b.tar.xz): unpacks the builds into $B (/tmp/b), lays them out as
# bench/run.sh and bench/quick.sh expect ($B/tilec static, $B/bench/bench_gemm),
# points the tests at the sources and prints the GPU.
B=/tmp/b
rm -rf "$B" && mkdir -p "$B" && tar -C "$B" -xJf "${CARRY:-carry/b.tar.xz}"
ln -sf bin/tilec_static "$B/tilec"
mkdir -p "$B/bench" && ln -sf ../bin/bench_gemm "$B/bench/bench_gemm"
OLD_B=""; [ -d "$B/old" ] && OLD_B=$B/old   # run old/bench_gemm with LD_LIBRARY_PATH=$OLD_B
export LD_LIBRARY_PATH="$B/bin:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TILEC_SOURCE_DIR=$PWD PATH="/usr/local/cuda/bin:$PATH"
echo "build: $(cat "$B/COMMIT" 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
