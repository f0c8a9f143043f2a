/*
 * Default sanitizer options, linked into every program of a sanitizer or
 * fuzz build (TILEC_SANITIZE / TILEC_FUZZ), so that the test suite, the
 * command and the fuzz targets all run with the same settings without any
 * environment variable.
 *
 * alloc_dealloc_mismatch=0: the prebuilt LLVM libraries pair allocations
 * from the statically linked libstdc++ (not intercepted) with ASan's
 * operator delete[], which ASan reports as a malloc / delete[] mismatch
 * inside LLVM's code generator on every compile. tilec's own code is C and
 * uses malloc/free only, so nothing of ours is hidden by this.
 */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *__asan_default_options(void) { return "alloc_dealloc_mismatch=0:detect_leaks=1"; }
const char *__ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1"; }
