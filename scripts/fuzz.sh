#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for N
# seconds (default 60): fuzz_parse, fuzz_compile, fuzz_options.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# New inputs go to $TILEC_FUZZ_DIR (default build-fuzz/)/corpus/<target>; the
# seed corpora in tests/fuzz/corpus_<target> are read, never written. A
# crash leaves its input in build-fuzz/artifacts/ and fails the script: copy
# it to tests/fuzz/regressions/<target>/, fix the bug, and the replay test
# keeps it fixed. Statistics of each run are in build-fuzz/logs/<target>.log.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=${*:-parse compile options}
scripts/deps.sh fuzz
dir=${TILEC_FUZZ_DIR:-build-fuzz}
CC=${FUZZ_CC:-clang} CXX=${FUZZ_CXX:-clang++} cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTILEC_FUZZ=ON -DTILEC_TESTS=OFF ${CUDA_INCLUDE_DIR:+-DCUDA_INCLUDE_DIR=$CUDA_INCLUDE_DIR} >/dev/null
# shellcheck disable=SC2086
cmake --build "$dir" -j"$(nproc)" --target $(printf 'fuzz_%s ' $targets) >/dev/null
mkdir -p "$dir/artifacts" "$dir/logs"
status=0
for t in $targets; do
  mkdir -p "$dir/corpus/$t"
  dict=tests/fuzz/tir.dict
  [ "$t" = options ] && dict=tests/fuzz/options.dict
  echo "fuzz_$t: ${secs}s"
  # -timeout: a compile of one small input taking longer is a finding too
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$dir/fuzz_$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$dir/artifacts/$t-" "$dir/corpus/$t" "tests/fuzz/corpus_$t" \
    >"$dir/logs/$t.log" 2>&1; then
    echo "fuzz_$t: FOUND A PROBLEM (see $dir/logs/$t.log and $dir/artifacts/)"
    grep -E 'ERROR|SUMMARY|Test unit written|abort|deadly' "$dir/logs/$t.log" | head -20
    status=1
  fi
  # the last status line: executions, coverage (cov), features (ft), corpus
  grep -E '^#[0-9]+' "$dir/logs/$t.log" | tail -1 || true
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$dir/logs/$t.log" || true
done
exit $status
