#!/usr/bin/env bash
# Runs the tilec command under valgrind's memcheck with full leak checking:
# no invalid access, no use of uninitialized memory, no leak (definite,
# indirect or possible), on a success and on a diagnosed error alike.
# Usage: valgrind-check.sh TILEC EXPECTED_STATUS ARGS...   (exit 77 without valgrind)
set -u
tilec=$1 want=$2
shift 2
if ! command -v valgrind >/dev/null; then
  echo "SKIP: valgrind not found (scripts/deps.sh installs it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# 99: an error valgrind found; anything else is tilec's own exit status
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 -q \
  --log-file="$tmp/vg.log" "$tilec" "$@" -o "$tmp/out" 2>"$tmp/stderr"
rc=$?
if [ $rc -ne "$want" ] || [ -s "$tmp/vg.log" ]; then
  echo "FAIL: tilec $* exited $rc (want $want)"
  cat "$tmp/vg.log" "$tmp/stderr"
  exit 1
fi
echo "PASS: valgrind clean: tilec $* (exit $rc)"
