#!/usr/bin/env bash
# A small lit-style runner: executes the "// RUN:" lines of a test file with
#   %s -> the test file, %t -> a scratch path, %tilec -> the compiler,
#   %FileCheck -> LLVM's FileCheck, %ptxas -> ptxas.
# "not CMD" succeeds only when CMD exits with status 1 (a diagnosed error:
# a crash or a usage error fails the test). "// REQUIRES: ptxas" skips
# (exit 77) when ptxas is absent.
set -u
test_file=$1
: "${TILEC:?}" "${FILECHECK:?}"
PTXAS=${PTXAS:-}

if grep -q '^// REQUIRES: ptxas' "$test_file" && [ -z "$PTXAS" ]; then
  echo "SKIP: ptxas not found"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

not() {
  "$@"
  local rc=$?
  if [ $rc -ne 1 ]; then
    echo "expected exit status 1, got $rc: $*" >&2
    return 1
  fi
  return 0
}
export -f not

n=0
while IFS= read -r line; do
  cmd=${line#*RUN: }
  cmd=${cmd//%tilec/$TILEC}
  cmd=${cmd//%FileCheck/$FILECHECK}
  cmd=${cmd//%ptxas/$PTXAS}
  cmd=${cmd//%s/$test_file}
  cmd=${cmd//%t/$tmp/t}
  n=$((n + 1))
  echo "RUN[$n]: $cmd"
  if ! bash -o pipefail -c "$cmd"; then
    echo "FAILED: RUN line $n of $test_file"
    exit 1
  fi
done < <(grep -E '^// RUN: ' "$test_file")

if [ $n -eq 0 ]; then
  echo "FAILED: $test_file has no RUN lines"
  exit 1
fi
echo "PASS: $test_file ($n RUN lines)"
