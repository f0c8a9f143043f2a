# Writes OUT: #define TILEC_BUILD_ID "<16 hex digits>", a hash of the files
# listed (one per line) in LIST. It goes into every kernel-cache key and
# autotune record (runtime/cache.c, tilecVersion), so that a tilec built
# from other sources never takes kernels compiled by this one, whatever
# its version number says. OUT changes only when the hash does.
#   cmake -DLIST=sources.txt -DOUT=tilec_build_id.h -P build_id.cmake
file(STRINGS "${LIST}" files)
set(all "")
foreach(f IN LISTS files)
  file(SHA256 "${f}" h)
  string(APPEND all "${h}")
endforeach()
string(SHA256 id "${all}")
string(SUBSTRING "${id}" 0 16 id)
file(WRITE "${OUT}.tmp" "#define TILEC_BUILD_ID \"${id}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
