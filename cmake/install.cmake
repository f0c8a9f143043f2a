# Installing tilec for embedders. include()d by the top-level CMakeLists.txt
# once tilec_core, the tilec command and the LLVM variables (LLVM_LIBS,
# LLVM_LIB_DIR, ZSTD_STATIC, Z_STATIC, TILEC_STATIC_CXX) exist.
#
# Builds and installs:
#   lib/libtilec.so.X.Y.Z  tilec_core linked whole, LLVM and libstdc++ inside
#                          and private: only the tilec* API is exported, so a
#                          host that loads another LLVM (PyTorch, Mesa, JAX)
#                          is not disturbed;
#   lib/libtilec.a         tilec_core + the LLVM archives in one archive, so a
#                          static link needs only -lstdc++ -lm -ldl -lpthread;
#   include/tilec.h, bin/tilec, lib/pkgconfig/tilec.pc,
#   lib/cmake/tilec/        find_package(tilec) -> tilec::tilec (shared),
#                           tilec::tilec_static.
# The installed tree is relocatable: tilec.pc and tilecConfig.cmake find the
# prefix relative to themselves.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILEC_SOVERSION ${PROJECT_VERSION_MAJOR})
set(_tilec_gen ${CMAKE_BINARY_DIR}/tilec-install)

# ---- libtilec.so --------------------------------------------------------------
# Anything not named tilec* is local: the compiler's internals, LLVM and the
# static libstdc++ all stay inside the library. (Not --exclude-libs,ALL: it
# would hide the API too, since that also comes from an archive.)
file(CONFIGURE OUTPUT ${_tilec_gen}/tilec.map CONTENT "{\n  global: tilec*;\n  local: *;\n};\n")
# add_library needs a source; the code is all in tilec_core.
file(CONFIGURE OUTPUT ${_tilec_gen}/tilec_shared.c
  CONTENT "/* libtilec.so: the code comes from tilec_core, linked whole. */\ntypedef int tilec_shared_unit;\n")

add_library(tilec_shared SHARED ${_tilec_gen}/tilec_shared.c)
set_target_properties(tilec_shared PROPERTIES
  # no RPATH: LLVM is linked in statically, and CMake's build RPATH would end
  # in an empty entry, the current directory, where dlopen would then look
  # for libcuda.so.1 (a review's finding, session 30)
  SKIP_BUILD_RPATH TRUE
  OUTPUT_NAME tilec
  VERSION ${PROJECT_VERSION}
  SOVERSION ${TILEC_SOVERSION}
  LINKER_LANGUAGE CXX
  C_VISIBILITY_PRESET hidden
  LINK_DEPENDS ${_tilec_gen}/tilec.map)
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
  target_link_libraries(tilec_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,tilec_core>")
else()
  # Older CMake: wrap the archive by hand and repeat its own dependencies
  # after it, outside the whole-archive region.
  add_dependencies(tilec_shared tilec_core)
  target_link_directories(tilec_shared PRIVATE ${LLVM_LIB_DIR})
  target_link_libraries(tilec_shared PRIVATE
    -Wl,--whole-archive $<TARGET_FILE:tilec_core> -Wl,--no-whole-archive
    ${LLVM_LIBS} ${ZSTD_STATIC} ${Z_STATIC} ${CMAKE_DL_LIBS} m pthread)
endif()
target_link_options(tilec_shared PRIVATE
  "LINKER:--version-script=${_tilec_gen}/tilec.map"
  "LINKER:-z,defs"
  ${TILEC_STATIC_CXX})

# ---- libtilec.a -----------------------------------------------------------------
# One archive holding tilec_core and every static library it links (LLVM,
# and zstd / zlib where they were found as archives), merged with an ar MRI
# script. Rebuilt only when tilec_core changes.
set(_tilec_bundle ${CMAKE_BINARY_DIR}/libtilec.a)
set(_tilec_mri "CREATE ${_tilec_bundle}\nADDLIB $<TARGET_FILE:tilec_core>\n")
set(_tilec_bundle_deps "")
set(_tilec_private_libs "-lstdc++ -lm -ldl -lpthread")
foreach(lib ${LLVM_LIBS})
  string(REGEX REPLACE "^-l" "" name "${lib}")
  set(path "${LLVM_LIB_DIR}/lib${name}.a")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "install.cmake: ${lib} is not a static library at ${path}")
  endif()
  string(APPEND _tilec_mri "ADDLIB ${path}\n")
  list(APPEND _tilec_bundle_deps "${path}")
endforeach()
foreach(extra ZSTD_STATIC Z_STATIC)
  if(${extra} MATCHES "\\.a$")
    string(APPEND _tilec_mri "ADDLIB ${${extra}}\n")
    list(APPEND _tilec_bundle_deps "${${extra}}")
  elseif(${extra})
    get_filename_component(name "${${extra}}" NAME_WE)
    string(REGEX REPLACE "^lib" "" name "${name}")
    string(APPEND _tilec_private_libs " -l${name}")
  endif()
endforeach()
string(APPEND _tilec_mri "SAVE\nEND\n")
file(GENERATE OUTPUT ${_tilec_gen}/bundle.mri CONTENT "${_tilec_mri}")
# ar reads the script on stdin; a cmake -P step avoids shell redirection.
file(CONFIGURE OUTPUT ${_tilec_gen}/bundle.cmake @ONLY CONTENT [=[
file(REMOVE "@_tilec_bundle@")
execute_process(COMMAND "@CMAKE_AR@" -M INPUT_FILE "@_tilec_gen@/bundle.mri" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ar -M failed (${rc}) merging libtilec.a")
endif()
]=])
add_custom_command(OUTPUT ${_tilec_bundle}
  COMMAND ${CMAKE_COMMAND} -P ${_tilec_gen}/bundle.cmake
  DEPENDS tilec_core ${_tilec_gen}/bundle.mri ${_tilec_gen}/bundle.cmake ${_tilec_bundle_deps}
  COMMENT "Merging tilec_core and LLVM into libtilec.a"
  VERBATIM)
add_custom_target(tilec_static ALL DEPENDS ${_tilec_bundle})

# ---- install rules -------------------------------------------------------------------
install(TARGETS tilec_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${_tilec_bundle} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_CURRENT_LIST_DIR}/../include/tilec.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET tilec)
  install(TARGETS tilec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# Paths from the installed pkgconfig / cmake folders back to the prefix.
function(_tilec_up_to_prefix dir out)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${CMAKE_INSTALL_PREFIX}" PARENT_SCOPE) # an absolute libdir is not relocatable
    return()
  endif()
  file(RELATIVE_PATH rel "/prefix/${dir}" "/prefix")
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()

# tilec.pc
_tilec_up_to_prefix("${CMAKE_INSTALL_LIBDIR}/pkgconfig" _tilec_pc_up)
if(IS_ABSOLUTE "${_tilec_pc_up}")
  set(_tilec_pc_prefix "${_tilec_pc_up}")
else()
  set(_tilec_pc_prefix "\${pcfiledir}/${_tilec_pc_up}")
endif()
file(CONFIGURE OUTPUT ${_tilec_gen}/tilec.pc @ONLY CONTENT [=[
prefix=@_tilec_pc_prefix@
libdir=${prefix}/@CMAKE_INSTALL_LIBDIR@
includedir=${prefix}/@CMAKE_INSTALL_INCLUDEDIR@

Name: tilec
Description: Tile-kernel compiler (.tir -> PTX) with a CUDA driver JIT runtime
Version: @PROJECT_VERSION@
Libs: -L${libdir} -ltilec
Libs.private: @_tilec_private_libs@
Cflags: -I${includedir}
]=])
install(FILES ${_tilec_gen}/tilec.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# tilecConfig.cmake + tilecConfigVersion.cmake
set(_tilec_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)
_tilec_up_to_prefix("${_tilec_cmake_dir}" _tilec_cm_up)
string(REPLACE ";" " " _tilec_static_libs "${_tilec_private_libs}")
separate_arguments(_tilec_static_list UNIX_COMMAND "${_tilec_static_libs}")
list(TRANSFORM _tilec_static_list REPLACE "^-l" "")
file(CONFIGURE OUTPUT ${_tilec_gen}/tilecConfig.cmake @ONLY CONTENT [=[
# tilec's CMake package. find_package(tilec) defines
#   tilec::tilec         the shared library (LLVM inside, not exported)
#   tilec::tilec_static  the static library (LLVM inside)
if(IS_ABSOLUTE "@_tilec_cm_up@")
  set(_tilec_prefix "@_tilec_cm_up@")
else()
  get_filename_component(_tilec_prefix "${CMAKE_CURRENT_LIST_DIR}/@_tilec_cm_up@" ABSOLUTE)
endif()
set(tilec_INCLUDE_DIR "${_tilec_prefix}/@CMAKE_INSTALL_INCLUDEDIR@")
if(NOT TARGET tilec::tilec)
  add_library(tilec::tilec SHARED IMPORTED)
  set_target_properties(tilec::tilec PROPERTIES
    IMPORTED_LOCATION "${_tilec_prefix}/@CMAKE_INSTALL_LIBDIR@/libtilec.so.@PROJECT_VERSION@"
    IMPORTED_SONAME "libtilec.so.@TILEC_SOVERSION@"
    INTERFACE_INCLUDE_DIRECTORIES "${tilec_INCLUDE_DIR}")
endif()
if(NOT TARGET tilec::tilec_static)
  add_library(tilec::tilec_static STATIC IMPORTED)
  set_target_properties(tilec::tilec_static PROPERTIES
    IMPORTED_LOCATION "${_tilec_prefix}/@CMAKE_INSTALL_LIBDIR@/libtilec.a"
    INTERFACE_INCLUDE_DIRECTORIES "${tilec_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "@_tilec_static_list@")
endif()
if(EXISTS "${_tilec_prefix}/@CMAKE_INSTALL_BINDIR@/tilec")
  set(tilec_EXECUTABLE "${_tilec_prefix}/@CMAKE_INSTALL_BINDIR@/tilec")
endif()
unset(_tilec_prefix)
]=])
write_basic_package_version_file(${_tilec_gen}/tilecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${_tilec_gen}/tilecConfig.cmake ${_tilec_gen}/tilecConfigVersion.cmake
  DESTINATION ${_tilec_cmake_dir})
