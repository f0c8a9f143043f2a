#!/usr/bin/env bash
# The built binaries' RPATH / RUNPATH has no empty and no relative entry:
# such an entry is the current directory, where the runtime's
# dlopen("libcuda.so.1") would then find whatever driver lies there (CMake's
# build RPATH ended in one: a review's finding, session 30). Skips (77)
# without readelf.
#   tests/runpath-check.sh FILE...
set -u
command -v readelf >/dev/null || { echo "SKIP: readelf missing"; exit 77; }
bad=0
for f in "$@"; do
  while IFS= read -r p; do  # each RPATH / RUNPATH, empty ones included
    rest=$p:
    while [ -n "$rest" ]; do
      e=${rest%%:*} rest=${rest#*:}
      case $e in
        /* | '$ORIGIN' | '$ORIGIN'/*) ;;
        *) echo "FAIL: $f: RUNPATH [$p] has the entry '$e' (the current directory, or relative to it)"; bad=1 ;;
      esac
    done
  done < <(readelf -d "$f" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p')
done
[ $bad = 0 ] && echo "ok: $# files, no empty or relative RUNPATH entry"
exit $bad
