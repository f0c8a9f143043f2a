#!/usr/bin/env bash
# Installs the Debian 12 packages tilec needs to build and test, if missing.
# Needs root (or sudo) only when something is missing.
#   scripts/deps.sh        build and test (valgrind for the leak tests)
#   scripts/deps.sh fuzz   also clang and libFuzzer (scripts/fuzz.sh)
set -eu
pkgs="gcc g++ make cmake pkg-config llvm-19-dev llvm-19-tools libzstd-dev zlib1g-dev check libsubunit-dev valgrind python3"
if [ "${1:-}" = fuzz ]; then
  pkgs="$pkgs clang libclang-rt-14-dev"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "tilec: installing:$missing"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ ! -f /usr/local/cuda/include/cuda.h ] && [ -z "${CUDA_INCLUDE_DIR:-}" ]; then
  echo "tilec: cuda.h not found: install the CUDA toolkit under /usr/local/cuda (or set CUDA_INCLUDE_DIR)" >&2
  exit 1
fi
