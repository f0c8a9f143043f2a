#!/usr/bin/env bash
# Builds tilec with warnings as errors and runs the whole test suite (unit,
# golden, diagnostic, ptxas and GPU tests; GPU tests skip without a GPU).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${TILEC_BUILD_DIR:-build-test}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEC_WERROR=ON ${TILEC_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)"
