#!/usr/bin/env bash
# Builds what a device call runs and packs it into carry/b.tar.xz (carry/ is
# kept out of git): the dev build's GPU tests, bench_gemm, tilec and
# libtilec_dev.so, and the static tilec as bin/tilec_static. Pass
# carry=["carry"] to the device tool and start the command with
# `. bench/device/env.sh`.
#   bench/device/pack.sh        (DEV_BUILD, STATIC_BUILD: the build folders,
#                                default /tmp/b-dev and /tmp/b-static)
#   OLD=COMMIT bench/device/pack.sh   also old/: that commit's bench_gemm,
#                                libtilec_dev.so and static tilec, for A/Bs
#                                in one call (env.sh sets $OLD_B)
set -eu
cd "$(dirname "$0")/../.."
dev=${DEV_BUILD:-/tmp/b-dev}
static=${STATIC_BUILD:-/tmp/b-static}
cmake -S . -B "$dev" -DTILEC_DEV_SHARED=ON -DTILEC_WERROR=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dev" -j"$(nproc)" >/dev/null
cmake -S . -B "$static" -DTILEC_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$static" -j"$(nproc)" >/dev/null
mkdir -p carry
grep -qx 'carry/' .git/info/exclude 2>/dev/null || echo 'carry/' >> .git/info/exclude
stage=$(mktemp -d)
mkdir -p "$stage/bin"
cp "$dev"/bin/{bench_gemm,tilec,libtilec_dev.so} "$dev"/bin/gpu_test_* "$stage/bin/"
cp "$static/tilec" "$stage/bin/tilec_static"
if [ -n "${OLD:-}" ]; then
  src=/tmp/old-src
  rm -rf "$src" && git worktree prune && git worktree add -q --detach "$src" "$OLD"
  cmake -S "$src" -B /tmp/b-old -DTILEC_DEV_SHARED=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build /tmp/b-old -j"$(nproc)" --target bench_gemm tilec >/dev/null
  cmake -S "$src" -B /tmp/b-old-static -DTILEC_TESTS=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build /tmp/b-old-static -j"$(nproc)" >/dev/null
  mkdir -p "$stage/old"
  cp /tmp/b-old/bin/{bench_gemm,libtilec_dev.so} "$stage/old/"
  cp /tmp/b-old-static/tilec "$stage/old/tilec_static"
  git -C "$src" rev-parse --short HEAD > "$stage/old/COMMIT"
fi
# what was built, printed by env.sh in every call (a stale carried build timed the wrong kernel once: NOTES v35)
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + changes')" > "$stage/COMMIT"
tar -C "$stage" -cJf carry/b.tar.xz .
rm -rf "$stage"
echo "carry/b.tar.xz: $(du -h carry/b.tar.xz | cut -f1), $(git rev-parse --short HEAD)$(git diff --quiet || echo ' + changes')"
