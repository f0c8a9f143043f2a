/*
 * The embedding API and the kernel cache, on a machine without a GPU.
 *
 * Covers what must hold before any device is involved: every handle is
 * checked, options and source errors come back as result codes with a
 * readable log, getters refuse to answer before a compile, the runtime says
 * clearly when there is no driver, TILEC_DUMP writes its files, and the disk
 * cache survives truncated, corrupt and foreign files, unwritable or full
 * directories and several processes filling one entry at once.
 */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "runtime/settings.h"
#include "runtime/tmap.h"
#include "tilec.h"

static const char AXPB[] =
    "// y = a*x + b, 1024 elements per program\n"
    "kernel @axpb(%X: ptr<f32>, %Y: ptr<f32>, %a: f32, %b: f32, %n: i32) warps(4) {\n"
    "  %pid = program_id 0\n"
    "  %j = mul %pid, 1024\n"
    "  %vx = view %X [1, %n] strides [%n, 1]\n"
    "  %vy = view %Y [1, %n] strides [%n, 1]\n"
    "  %x = load %vx[0, %j] : tile<1x1024xf32>\n"
    "  %ax = mul %x, %a\n"
    "  %y = add %ax, %b\n"
    "  store %y, %vy[0, %j]\n"
    "}\n";

static const char BAD[] = "kernel @bad(%X: ptr<f32>) {\n"
                          "  %y = frobnicate %X\n"
                          "}\n";

/* ---- helpers ---- */

static char tmp_root[256];

static void make_tmp(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp_root, sizeof tmp_root, "%s/tilec-test-api-XXXXXX", t && t[0] ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmp_root));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    chmod(path, 0700); /* undo the read-only test before removing */
    return remove(path);
}

static void remove_tmp(void)
{
    if (!tmp_root[0])
        return;
    chmod(tmp_root, 0700);
    nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    tmp_root[0] = 0;
}

/* "<file>:<line>:<col>: error:" somewhere in log (file without regex specials) */
static int has_located_error(const char *log, const char *file)
{
    char pat[256];
    regex_t re;
    snprintf(pat, sizeof pat, "%s:[0-9]+:[0-9]+: error:", file);
    ck_assert_int_eq(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
    int found = regexec(&re, log, 0, NULL, 0) == 0;
    regfree(&re);
    return found;
}

static int driver_present(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Entries of dir, not counting dot files. */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Files in dir whose names match the glob pattern. */
static int matches(const char *dir, const char *pattern)
{
    char pat[1024];
    glob_t g;
    snprintf(pat, sizeof pat, "%s/%s", dir, pattern);
    int n = glob(pat, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    globfree(&g);
    return n;
}

#define LOG_TEXT(sb) ((sb).data ? (sb).data : "")
#define ASSERT_LOG_HAS(sb, text) ck_assert_msg((sb).data && strstr((sb).data, text), "log: %s", LOG_TEXT(sb))

/* A two-kernel entry with a fake cubin; seed varies the contents. The
 * first kernel has two tensor maps, every field set to something that
 * would show if it were lost or swapped. */
static TirType params_a[3], params_b[1];
static TcTmap tmaps_a[2];
static TcKernelInfo kernels[2];

static TcCacheEntry sample_entry(unsigned seed, char *ptx, unsigned char *cubin, size_t cubin_len)
{
    params_a[0] = (TirType){.kind = TY_PTR, .elem = ELEM_F32};
    params_a[1] = (TirType){.kind = TY_PTR, .elem = ELEM_F16};
    params_a[2] = (TirType){.kind = TY_SCALAR, .elem = ELEM_I32};
    params_b[0] = (TirType){.kind = TY_SCALAR, .elem = ELEM_F32};
    tmaps_a[0] = (TcTmap){.kind = TC_TMAP_ROWS, .dtype = TC_TMAP_TF32, .box = {32, 128, 0}, .base_param = 0,
                          .d0 = {.param = 2, .value = 0}, .d1 = {.param = -1, .value = 4096 + seed},
                          .s0 = {.param = 2, .value = 0}, .s1 = {.param = -1, .value = 1}, .stage = 1,
                          .round = 1, .walk = 1, .across = (uint16_t)(40000 + seed)};
    tmaps_a[1] = (TcTmap){.kind = TC_TMAP_PANELS, .dtype = TC_TMAP_BF16, .batched = 1, .box = {8, 64, 65535},
                          .base_param = 1, .d0 = {.param = -1, .value = -((int64_t)1 << 40) - 3},
                          .d1 = {.param = -7, .value = INT64_MAX}, .s0 = {.param = 0, .value = INT64_MIN},
                          .s1 = {.param = 2, .value = 17}, .db = {.param = -1, .value = 6 + seed},
                          .sb = {.param = 1, .value = -9}, .store = 1, .optional = 1};
    kernels[0] = (TcKernelInfo){.name = "gemm", .threads = 256, .shared_bytes = 99328 + seed,
                                .grid = {0, 0, 0}, .nparams = 3, .params = params_a, .ntmaps = 2,
                                .tmaps = tmaps_a, .rounded = 1, .tma_required = 1};
    kernels[1] = (TcKernelInfo){.name = "scale", .threads = 128, .shared_bytes = 0,
                                .grid = {4, 2, 1}, .persistent = 1, .nparams = 1, .params = params_b};
    sprintf(ptx, ".version 8.0\n.target sm_90a\n// entry %u\n", seed);
    for (size_t i = 0; i < cubin_len; i++)
        cubin[i] = (unsigned char)(i * 31 + seed);
    return (TcCacheEntry){.ptx = ptx, .ptx_len = strlen(ptx), .kernels = kernels, .nkernels = 2,
                          .cubin = cubin, .cubin_len = cubin_len};
}

static void assert_tmap_scalar_eq(const TcTmapScalar *a, const TcTmapScalar *b)
{
    ck_assert_int_eq(a->param, b->param);
    ck_assert_int_eq(a->value, b->value);
}

static void assert_tmap_eq(const TcTmap *a, const TcTmap *b)
{
    ck_assert_uint_eq(a->kind, b->kind);
    ck_assert_uint_eq(a->dtype, b->dtype);
    ck_assert_uint_eq(a->batched, b->batched);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(a->box[i], b->box[i]);
    ck_assert_uint_eq(a->base_param, b->base_param);
    assert_tmap_scalar_eq(&a->d0, &b->d0);
    assert_tmap_scalar_eq(&a->d1, &b->d1);
    assert_tmap_scalar_eq(&a->s0, &b->s0);
    assert_tmap_scalar_eq(&a->s1, &b->s1);
    assert_tmap_scalar_eq(&a->db, &b->db);
    assert_tmap_scalar_eq(&a->sb, &b->sb);
    ck_assert_uint_eq(a->stage, b->stage);
    ck_assert_uint_eq(a->round, b->round);
    ck_assert_uint_eq(a->walk, b->walk);
    ck_assert_uint_eq(a->store, b->store);
    ck_assert_uint_eq(a->optional, b->optional);
    ck_assert_uint_eq(a->across, b->across);
}

static void assert_entry_eq(const TcCacheEntry *a, const TcCacheEntry *b)
{
    ck_assert_uint_eq(a->ptx_len, b->ptx_len);
    ck_assert_mem_eq(a->ptx, b->ptx, a->ptx_len);
    ck_assert_uint_eq(a->cubin_len, b->cubin_len);
    if (a->cubin_len)
        ck_assert_mem_eq(a->cubin, b->cubin, a->cubin_len);
    ck_assert_uint_eq(a->nkernels, b->nkernels);
    for (unsigned i = 0; i < a->nkernels; i++) {
        const TcKernelInfo *x = &a->kernels[i], *y = &b->kernels[i];
        ck_assert_str_eq(x->name, y->name);
        ck_assert_uint_eq(x->threads, y->threads);
        ck_assert_uint_eq(x->shared_bytes, y->shared_bytes);
        ck_assert_mem_eq(x->grid, y->grid, sizeof x->grid);
        ck_assert_uint_eq(x->persistent, y->persistent);
        ck_assert_uint_eq(x->rounded, y->rounded);
        ck_assert_uint_eq(x->tma_required, y->tma_required);
        ck_assert_uint_eq(x->nparams, y->nparams);
        for (unsigned j = 0; j < x->nparams; j++)
            ck_assert(tir_type_eq(x->params[j], y->params[j]));
        ck_assert_uint_eq(x->ntmaps, y->ntmaps);
        for (unsigned j = 0; j < x->ntmaps; j++)
            assert_tmap_eq(&x->tmaps[j], &y->tmaps[j]);
    }
}

static TcCacheKey key_of(const char *src)
{
    TcCacheKeyParts p = {.src = src, .src_len = strlen(src), .options = "--arch=sm_90a -O3",
                         .target = "sm_90a", .cc_major = 9, .cc_minor = 0, .driver_version = 13000};
    TcCacheKey k;
    tc_cache_key(&p, &k);
    return k;
}

/* ---- results, versions, handles ---- */

START_TEST(error_strings)
{
    /* every code has its own name, spelled like the enum constant */
    for (int i = 0; i < TILEC_ERROR_COUNT; i++) {
        const char *s = tilecGetErrorString((tilecResult)i);
        ck_assert_ptr_nonnull(s);
        ck_assert_msg(!strncmp(s, "TILEC_", 6), "%d -> %s", i, s);
        ck_assert_str_ne(s, "TILEC_ERROR_UNKNOWN");
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(s, tilecGetErrorString((tilecResult)j));
    }
    ck_assert_str_eq(tilecGetErrorString(TILEC_SUCCESS), "TILEC_SUCCESS");
    ck_assert_str_eq(tilecGetErrorString(TILEC_ERROR_JIT), "TILEC_ERROR_JIT");
    ck_assert_str_eq(tilecGetErrorString(TILEC_ERROR_NO_DRIVER), "TILEC_ERROR_NO_DRIVER");
    ck_assert_str_eq(tilecGetErrorString(TILEC_ERROR_CACHE), "TILEC_ERROR_CACHE");
    ck_assert_str_eq(tilecGetErrorString(TILEC_ERROR_COUNT), "TILEC_ERROR_UNKNOWN");
    ck_assert_str_eq(tilecGetErrorString((tilecResult)-1), "TILEC_ERROR_UNKNOWN");
    ck_assert_str_eq(tilecGetErrorString((tilecResult)12345), "TILEC_ERROR_UNKNOWN");
}
END_TEST

START_TEST(version_string)
{
    const char *v = tilecVersion();
    ck_assert(!strncmp(v, "tilec ", 6));
    ck_assert_ptr_nonnull(strstr(v, " (LLVM "));
    ck_assert_ptr_nonnull(strstr(v, ", build ")); /* 16 hex digits: cmake/build_id.cmake */
    ck_assert_uint_eq(strlen(strstr(v, ", build ")), strlen(", build ") + 16 + 1);
    ck_assert(v[strlen(v) - 1] == ')');
}
END_TEST

START_TEST(null_handles)
{
    const char *s;
    size_t n;
    unsigned u;
    tilecKernelInfo ki;
    tilecProgram p = NULL;
    tilecRuntime rt = NULL;
    tilecModule m = NULL;
    tilecDevicePtr d;
    int a, b;
    ck_assert_int_eq(tilecCreateProgram(NULL, AXPB, sizeof AXPB - 1, "x"), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecCreateProgram(&p, NULL, 5, "x"), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(tilecCompileProgram(NULL, 0, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetProgramLog(NULL, &s), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetPTX(NULL, &s, &n), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetStage(NULL, TILEC_STAGE_PTX, &s), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecDestroyProgram(NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecDestroyProgram(&p), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetKernelCount(NULL, &u), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetKernelInfo(NULL, 0, &ki), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecRuntimeCreate(NULL, 0), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecRuntimeGetLog(NULL, &s), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecRuntimeDeviceName(NULL, &s), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecRuntimeComputeCapability(NULL, &a, &b), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecRuntimeDestroy(NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecRuntimeDestroy(&rt), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecModuleLoad(NULL, NULL, &m), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecModuleLoadSource(NULL, AXPB, sizeof AXPB - 1, "x", 0, NULL, &m),
                     TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecLaunch(NULL, "axpb", NULL, NULL, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecModuleUnload(NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecMalloc(NULL, &d, 16), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecFree(NULL, 0), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecMemcpyHtoD(NULL, 0, &a, 4), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecMemcpyDtoH(NULL, &a, 0, 4), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecMemsetD8(NULL, 0, 0, 4), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecSynchronize(NULL), TILEC_ERROR_INVALID_ARGUMENT);

    /* a valid program with NULL out-parameters */
    ck_assert_int_eq(tilecCreateProgram(&p, AXPB, sizeof AXPB - 1, NULL), TILEC_SUCCESS);
    ck_assert_int_eq(tilecGetProgramLog(p, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetPTX(p, NULL, &n), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetKernelInfo(p, 0, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecCompileProgram(p, -1, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecCompileProgram(p, 2, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecDestroyProgram(&p), TILEC_SUCCESS);
    ck_assert_ptr_null(p);
}
END_TEST

/* ---- programs ---- */

START_TEST(getters_before_compile)
{
    tilecProgram p;
    const char *s = "x";
    size_t n = 7;
    unsigned u = 7;
    tilecKernelInfo ki;
    ck_assert_int_eq(tilecCreateProgram(&p, AXPB, sizeof AXPB - 1, "axpb.tir"), TILEC_SUCCESS);
    ck_assert_int_eq(tilecGetProgramLog(p, &s), TILEC_SUCCESS);
    ck_assert_str_eq(s, ""); /* never NULL */
    ck_assert_int_eq(tilecGetPTX(p, &s, &n), TILEC_ERROR_INVALID_STATE);
    ck_assert_ptr_null(s);
    for (int st = TILEC_STAGE_TIR_INPUT; st <= TILEC_STAGE_PTX; st++)
        ck_assert_int_eq(tilecGetStage(p, (tilecStage)st, &s), TILEC_ERROR_INVALID_STATE);
    ck_assert_int_eq(tilecGetStage(p, (tilecStage)99, &s), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(tilecGetKernelCount(p, &u), TILEC_ERROR_INVALID_STATE);
    ck_assert_int_eq(tilecGetKernelInfo(p, 0, &ki), TILEC_ERROR_INVALID_STATE);
    tilecDestroyProgram(&p);
}
END_TEST

START_TEST(bad_option)
{
    tilecProgram p;
    const char *log, *ptx;
    const char *opts[] = {"-O2", "--frobnicate", "--arch=sm_42"};
    ck_assert_int_eq(tilecCreateProgram(&p, AXPB, sizeof AXPB - 1, "axpb.tir"), TILEC_SUCCESS);
    ck_assert_int_eq(tilecCompileProgram(p, 3, opts), TILEC_ERROR_INVALID_OPTION);
    ck_assert_int_eq(tilecGetProgramLog(p, &log), TILEC_SUCCESS);
    /* both bad options are explained, the good one is not mentioned */
    ck_assert_msg(strstr(log, "--frobnicate") != NULL, "log: %s", log);
    ck_assert_msg(strstr(log, "sm_42") != NULL, "log: %s", log);
    ck_assert_ptr_null(strstr(log, "-O2"));
    ck_assert_int_eq(tilecGetPTX(p, &ptx, NULL), TILEC_ERROR_INVALID_STATE);
    const char *nullopt[] = {NULL};
    ck_assert_int_eq(tilecCompileProgram(p, 1, nullopt), TILEC_ERROR_INVALID_OPTION);
    tilecDestroyProgram(&p);
}
END_TEST

START_TEST(compile_error)
{
    tilecProgram p;
    const char *log, *s;
    ck_assert_int_eq(tilecCreateProgram(&p, BAD, sizeof BAD - 1, "bad.tir"), TILEC_SUCCESS);
    ck_assert_int_eq(tilecCompileProgram(p, 0, NULL), TILEC_ERROR_COMPILATION);
    ck_assert_int_eq(tilecGetProgramLog(p, &log), TILEC_SUCCESS);
    ck_assert_msg(has_located_error(log, "bad.tir"), "no 'bad.tir:line:col: error:' in log:\n%s", log);
    ck_assert_int_eq(tilecGetPTX(p, &s, NULL), TILEC_ERROR_INVALID_STATE);
    ck_assert_int_eq(tilecGetStage(p, TILEC_STAGE_PTX, &s), TILEC_ERROR_INVALID_STATE);
    tilecDestroyProgram(&p);

    /* an unnamed program still gets a location */
    ck_assert_int_eq(tilecCreateProgram(&p, BAD, sizeof BAD - 1, NULL), TILEC_SUCCESS);
    ck_assert_int_eq(tilecCompileProgram(p, 0, NULL), TILEC_ERROR_COMPILATION);
    tilecGetProgramLog(p, &log);
    ck_assert_msg(strstr(log, ": error:") != NULL, "log: %s", log);
    tilecDestroyProgram(&p);
}
END_TEST

START_TEST(compile_ok_and_getters)
{
    tilecProgram p;
    const char *s, *ptx;
    size_t n = 0;
    unsigned count = 0;
    tilecKernelInfo ki;
    /* not NUL-terminated: the length is what counts */
    char *src = malloc(sizeof AXPB - 1);
    memcpy(src, AXPB, sizeof AXPB - 1);
    ck_assert_int_eq(tilecCreateProgram(&p, src, sizeof AXPB - 1, "axpb.tir"), TILEC_SUCCESS);
    free(src);
    const char *opts[] = {"--arch=sm_80", "-O3"};
    ck_assert_int_eq(tilecCompileProgram(p, 2, opts), TILEC_SUCCESS);
    ck_assert_int_eq(tilecGetPTX(p, &ptx, &n), TILEC_SUCCESS);
    ck_assert_uint_eq(n, strlen(ptx));
    ck_assert_ptr_nonnull(strstr(ptx, "axpb"));
    ck_assert_ptr_nonnull(strstr(ptx, "sm_80"));
    ck_assert_int_eq(tilecGetStage(p, TILEC_STAGE_PTX, &s), TILEC_SUCCESS);
    ck_assert_ptr_eq(s, ptx);
    ck_assert_int_eq(tilecGetStage(p, TILEC_STAGE_TIR_INPUT, &s), TILEC_SUCCESS);
    ck_assert_ptr_nonnull(strstr(s, "@axpb"));
    ck_assert_int_eq(tilecGetStage(p, TILEC_STAGE_TIR, &s), TILEC_SUCCESS);
    ck_assert_int_eq(tilecGetStage(p, TILEC_STAGE_LLVM, &s), TILEC_SUCCESS);
    ck_assert_int_eq(tilecGetKernelCount(p, &count), TILEC_SUCCESS);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(tilecGetKernelInfo(p, 0, &ki), TILEC_SUCCESS);
    ck_assert_str_eq(ki.name, "axpb");
    ck_assert_uint_eq(ki.threads, 128); /* warps(4) */
    ck_assert_uint_eq(ki.nparams, 5);
    ck_assert_uint_eq(ki.grid[0], 0);
    ck_assert_int_eq(tilecGetKernelInfo(p, 1, &ki), TILEC_ERROR_INVALID_ARGUMENT);
    /* a failed recompile drops the earlier results */
    const char *bad[] = {"--nope"};
    ck_assert_int_eq(tilecCompileProgram(p, 1, bad), TILEC_ERROR_INVALID_OPTION);
    ck_assert_int_eq(tilecGetPTX(p, &ptx, &n), TILEC_ERROR_INVALID_STATE);
    ck_assert_int_eq(tilecGetKernelCount(p, &count), TILEC_ERROR_INVALID_STATE);
    tilecDestroyProgram(&p);
}
END_TEST

START_TEST(dump_env)
{
    make_tmp();
    setenv("TILEC_DUMP", "ptx,tir,bogus", 1);
    setenv("TILEC_DUMP_DIR", tmp_root, 1);
    tilecProgram p;
    const char *log;
    ck_assert_int_eq(tilecCreateProgram(&p, AXPB, sizeof AXPB - 1, "kernels/axpb.tir"), TILEC_SUCCESS);
    ck_assert_int_eq(tilecCompileProgram(p, 0, NULL), TILEC_SUCCESS);
    tilecGetProgramLog(p, &log);
    ck_assert_msg(strstr(log, "bogus") != NULL, "log: %s", log);
    /* axpb.<8 hex>.ptx and .tir, nothing else */
    ck_assert_int_eq(matches(tmp_root, "axpb.[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f].ptx"), 1);
    ck_assert_int_eq(matches(tmp_root, "axpb.[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f].tir"), 1);
    ck_assert_int_eq(count_files(tmp_root), 2);

    /* an unwritable dump directory is a note, not a failure */
    setenv("TILEC_DUMP", "all", 1);
    setenv("TILEC_DUMP_DIR", "/nonexistent/tilec/dumps", 1);
    ck_assert_int_eq(tilecCompileProgram(p, 0, NULL), TILEC_SUCCESS);
    tilecGetProgramLog(p, &log);
    ck_assert_msg(strstr(log, "cannot write") != NULL, "log: %s", log);
    tilecDestroyProgram(&p);
    unsetenv("TILEC_DUMP");
    unsetenv("TILEC_DUMP_DIR");
    remove_tmp();
}
END_TEST

/* ---- runtime without a driver ---- */

START_TEST(no_driver)
{
    if (driver_present()) {
        fprintf(stderr, "no_driver: skipped, libcuda.so.1 is present\n");
        return;
    }
    tilecRuntime rt = NULL;
    const char *log, *name;
    int a, b;
    tilecDevicePtr d;
    tilecModule m;
    ck_assert_int_eq(tilecRuntimeCreate(&rt, 0), TILEC_ERROR_NO_DRIVER);
    ck_assert_ptr_nonnull(rt); /* holds the explanation */
    ck_assert_int_eq(tilecRuntimeGetLog(rt, &log), TILEC_SUCCESS);
    ck_assert_msg(strstr(log, "libcuda.so.1 not found (no NVIDIA driver on this machine)") != NULL, "log: %s", log);
    ck_assert_int_eq(tilecRuntimeDeviceName(rt, &name), TILEC_ERROR_NO_DRIVER);
    ck_assert_int_eq(tilecRuntimeComputeCapability(rt, &a, &b), TILEC_ERROR_NO_DRIVER);
    ck_assert_int_eq(tilecMalloc(rt, &d, 16), TILEC_ERROR_NO_DRIVER);
    ck_assert_int_eq(tilecSynchronize(rt), TILEC_ERROR_NO_DRIVER);
    ck_assert_int_eq(tilecModuleLoadSource(rt, AXPB, sizeof AXPB - 1, "axpb", 0, NULL, &m), TILEC_ERROR_NO_DRIVER);
    ck_assert_int_eq(tilecRuntimeDestroy(&rt), TILEC_SUCCESS);
    ck_assert_ptr_null(rt);
    /* the second time gives the same answer (one-time load) */
    ck_assert_int_eq(tilecRuntimeCreate(&rt, 1), TILEC_ERROR_NO_DRIVER);
    tilecRuntimeDestroy(&rt);
    /* compiling still works without a driver */
    tilecProgram p;
    tilecCreateProgram(&p, AXPB, sizeof AXPB - 1, "axpb.tir");
    ck_assert_int_eq(tilecCompileProgram(p, 0, NULL), TILEC_SUCCESS);
    tilecDestroyProgram(&p);
}
END_TEST

/* A runtime's settings (runtime/settings.h): each option over its
 * variable, the variable over the default; a bad variable is a note and
 * changes nothing, a bad option fails the whole set. */
START_TEST(runtime_settings)
{
    static const char *const vars[] = {"TILEC_CACHE",         "TILEC_CACHE_DIR", "TILEC_PTXAS",
                                       "TILEC_STAGE",         "TILEC_PREROUND",  "TILEC_JIT_TMA_ONLY",
                                       "TILEC_PERSIST_BLOCKS", "TILEC_TUNE_JOBS", "TILEC_TUNE_VERBOSE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    StrBuf log;
    sb_init(&log);
    TcSettings s;
    int oom = 0;
    ck_assert_int_eq(tc_settings_init(&s, 0, NULL, &log, &oom), 0);
    ck_assert_int_eq(s.cache, 1);
    ck_assert_ptr_null(s.cache_dir);
    ck_assert_int_eq(s.stage, TC_SWITCH_AUTO);
    ck_assert_int_eq(s.preround, TC_SWITCH_AUTO);
    ck_assert_int_eq(s.jit_tma_only, 1);
    ck_assert_uint_eq(s.persist_blocks, 0);
    ck_assert_uint_eq(s.tune_jobs, 0);
    ck_assert_int_eq(s.tune_verbose, 0);
    tc_settings_free(&s);
    ck_assert_uint_eq(log.len, 0);

    setenv("TILEC_CACHE", "off", 1);
    setenv("TILEC_CACHE_DIR", "/tmp/env-dir", 1);
    setenv("TILEC_PTXAS", "/opt/env/ptxas", 1);
    setenv("TILEC_STAGE", "1", 1);
    setenv("TILEC_PREROUND", "0", 1);
    setenv("TILEC_JIT_TMA_ONLY", "0", 1);
    setenv("TILEC_PERSIST_BLOCKS", "7", 1);
    setenv("TILEC_TUNE_JOBS", "3", 1);
    setenv("TILEC_TUNE_VERBOSE", "1", 1);
    ck_assert_int_eq(tc_settings_init(&s, 0, NULL, &log, &oom), 0);
    ck_assert_int_eq(s.cache, 0);
    ck_assert_str_eq(s.cache_dir, "/tmp/env-dir");
    ck_assert_str_eq(s.ptxas, "/opt/env/ptxas");
    ck_assert_int_eq(s.stage, TC_SWITCH_ALWAYS);
    ck_assert_int_eq(s.preround, TC_SWITCH_NEVER);
    ck_assert_int_eq(s.jit_tma_only, 0);
    ck_assert_uint_eq(s.persist_blocks, 7);
    ck_assert_uint_eq(s.tune_jobs, 3);
    ck_assert_int_eq(s.tune_verbose, 1);
    tc_settings_free(&s);

    /* options over the variables (/bin/sh: an executable file anywhere) */
    const char *opts[] = {"--cache-dir=/tmp/opt-dir", "--ptxas=/bin/sh", "--stage=never", "--preround=always",
                          "--jit-tma-only", "--persist-blocks=0", "--tune-jobs=0"};
    ck_assert_int_eq(tc_settings_init(&s, 7, opts, &log, &oom), 0);
    ck_assert_int_eq(s.cache, 1); /* a directory asked for: on disk */
    ck_assert_str_eq(s.cache_dir, "/tmp/opt-dir");
    ck_assert_str_eq(s.ptxas, "/bin/sh");
    ck_assert_int_eq(s.stage, TC_SWITCH_NEVER);
    ck_assert_int_eq(s.preround, TC_SWITCH_ALWAYS);
    ck_assert_int_eq(s.jit_tma_only, 1);
    ck_assert_uint_eq(s.persist_blocks, 0);
    ck_assert_uint_eq(s.tune_jobs, 0);
    tc_settings_free(&s);
    const char *off[] = {"--no-cache", "--no-ptxas", "--no-jit-tma-only", "--stage=auto", "--tune-verbose"};
    ck_assert_int_eq(tc_settings_init(&s, 5, off, &log, &oom), 0);
    ck_assert_int_eq(s.cache, 0);
    ck_assert_ptr_null(s.ptxas);
    ck_assert_int_eq(s.jit_tma_only, 0);
    ck_assert_int_eq(s.stage, TC_SWITCH_AUTO);
    tc_settings_free(&s);
    ck_assert_uint_eq(log.len, 0);

    /* bad variables: noted, the default kept; TILEC_TUNE_JOBS read as
     * strtol reads it, at least one thread (as before the options) */
    setenv("TILEC_STAGE", "yes", 1);
    setenv("TILEC_PERSIST_BLOCKS", "0", 1);
    setenv("TILEC_TUNE_JOBS", "3x", 1);
    ck_assert_int_eq(tc_settings_init(&s, 0, NULL, &log, &oom), 0);
    ck_assert_int_eq(s.stage, TC_SWITCH_AUTO);
    ck_assert_uint_eq(s.persist_blocks, 0);
    ck_assert_uint_eq(s.tune_jobs, 3);
    tc_settings_free(&s);
    ASSERT_LOG_HAS(log, "note: TILEC_STAGE=yes is neither 0 nor 1");
    ASSERT_LOG_HAS(log, "note: TILEC_PERSIST_BLOCKS=0 is not a number from 1 to 65535");
    setenv("TILEC_TUNE_JOBS", "0", 1);
    setenv("TILEC_PERSIST_BLOCKS", "", 1);
    ck_assert_int_eq(tc_settings_init(&s, 0, NULL, &log, &oom), 0);
    ck_assert_uint_eq(s.tune_jobs, 1); /* serial, as it was */
    tc_settings_free(&s);
    ASSERT_LOG_HAS(log, "note: TILEC_PERSIST_BLOCKS= is not a number");
    /* an option over a bad variable: the variable not judged */
    sb_free(&log);
    sb_init(&log);
    setenv("TILEC_TUNE_VERBOSE", "1", 1);
    const char *over[] = {"--stage=always", "--persist-blocks=2", "--no-tune-verbose"};
    ck_assert_int_eq(tc_settings_init(&s, 3, over, &log, &oom), 0);
    ck_assert_int_eq(s.stage, TC_SWITCH_ALWAYS);
    ck_assert_uint_eq(s.persist_blocks, 2);
    ck_assert_int_eq(s.tune_verbose, 0);
    tc_settings_free(&s);
    ck_assert_msg(log.len == 0, "log: %s", LOG_TEXT(log));
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);

    /* bad options: each an error, none applied */
    static const struct {
        const char *opt, *says;
    } bad[] = {
        {"--cache-dir=", "the directory is empty"},
        {"--ptxas=/nonexistent/ptxas", "not an executable file"},
        {"--ptxas=/tmp", "not an executable file"},
        {"--stage=sometimes", "never, auto or always"},
        {"--preround=1", "never, auto or always"},
        {"--persist-blocks=65536", "from 0 (no cap) to 65535"},
        {"--persist-blocks=-1", "from 0 (no cap) to 65535"},
        {"--tune-jobs=", "from 0 (one per CPU) to 1024"},
        {"--tune-jobs=2k", "from 0 (one per CPU) to 1024"},
        {"--cache-dir", "'--cache-dir': it takes a value"},
        {"-fwgmma-tma-only", "a compile option"},
        {"--stage", "it takes a value"},
        {"--ptxas=off", "no ptxas is --no-ptxas"},
        {"--verbose", "unknown runtime option '--verbose'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_free(&log);
        sb_init(&log);
        const char *o[] = {"--no-cache", bad[i].opt};
        ck_assert_int_eq(tc_settings_init(&s, 2, o, &log, &oom), -1);
        ck_assert_int_eq(oom, 0);
        ck_assert_ptr_null(s.cache_dir);
        ASSERT_LOG_HAS(log, bad[i].says);
    }
    const char *null_opt[] = {"--cache", NULL};
    ck_assert_int_eq(tc_settings_init(&s, 2, null_opt, &log, &oom), -1);
    ASSERT_LOG_HAS(log, "option 1 is NULL");
    sb_free(&log);

    /* through the API: a bad option fails before the driver is asked, a
     * failed runtime's handle holding the log */
    tilecRuntime rt = NULL;
    const char *o[] = {"--stage=maybe"}, *text = "";
    ck_assert_int_eq(tilecRuntimeCreateWithOptions(&rt, 0, 1, o), TILEC_ERROR_INVALID_OPTION);
    ck_assert_ptr_nonnull(rt);
    ck_assert_int_eq(tilecRuntimeGetLog(rt, &text), TILEC_SUCCESS);
    ck_assert_msg(strstr(text, "'--stage=maybe'") != NULL, "log: %s", text);
    ck_assert_int_eq(tilecMalloc(rt, &(tilecDevicePtr){0}, 16), TILEC_ERROR_INVALID_OPTION);
    tilecRuntimeDestroy(&rt);
    ck_assert_int_eq(tilecRuntimeCreateWithOptions(&rt, 0, -1, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    tilecRuntimeDestroy(&rt);
    ck_assert_int_eq(tilecRuntimeCreateWithOptions(&rt, 0, 1, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    tilecRuntimeDestroy(&rt);
    ck_assert_int_eq(tilecRuntimeCreateWithOptions(NULL, 0, 0, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    if (!driver_present()) {
        const char *good[] = {"--no-cache", "--tune-jobs=2"};
        ck_assert_int_eq(tilecRuntimeCreateWithOptions(&rt, 0, 2, good), TILEC_ERROR_NO_DRIVER);
        tilecRuntimeDestroy(&rt);
    }
}
END_TEST

/* ---- hashing and keys ---- */

START_TEST(sha256_vectors)
{
    uint8_t h[32];
    char hex[65];
    tc_sha256("", 0, h);
    tc_hex(h, 32, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    tc_sha256("abc", 3, h);
    tc_hex(h, 32, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    tc_sha256(two, strlen(two), h);
    tc_hex(h, 32, hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* a million 'a' fed in uneven pieces exercises the buffering */
    TcSha256 s;
    char a[997];
    memset(a, 'a', sizeof a);
    tc_sha256_init(&s);
    size_t left = 1000000;
    for (size_t step = 1; left; step = step * 7 % 997 + 1) {
        size_t n = step < left ? step : left;
        tc_sha256_update(&s, a, n);
        left -= n;
    }
    tc_sha256_final(&s, h);
    tc_hex(h, 32, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(key_fields)
{
    TcCacheKeyParts base = {.src = "abc", .src_len = 3, .options = "-O3", .target = "sm_90a",
                            .cc_major = 9, .cc_minor = 0, .driver_version = 12080};
    TcCacheKey k0, k1;
    tc_cache_key(&base, &k0);
    tc_cache_key(&base, &k1);
    ck_assert_mem_eq(k0.b, k1.b, 32); /* deterministic */
    TcCacheKeyParts v[7];
    for (int i = 0; i < 7; i++)
        v[i] = base;
    v[0].src = "abd";
    v[1].src_len = 2;
    v[2].options = "-O2";
    v[3].target = "sm_80";
    v[4].cc_minor = 1;
    v[5].driver_version = 12090;
    /* length prefixes: "abc" + "-O3" must differ from "abc-" + "O3" */
    v[6].src = "abc-";
    v[6].src_len = 4;
    v[6].options = "O3";
    for (int i = 0; i < 7; i++) {
        tc_cache_key(&v[i], &k1);
        ck_assert_msg(memcmp(k0.b, k1.b, 32) != 0, "field %d does not change the key", i);
    }
}
END_TEST

/* Every option that changes what is compiled changes the options string
 * the kernel cache's key is made of (a flag left out of it would let one
 * build's kernel be loaded for another's options). */
START_TEST(options_in_key)
{
    static const char *const flags[] = {"prefetch", "wgmma", "wgmma-hoist", "wgmma-swapped", "wgmma-unaligned",
                                        "wgmma-roles", "wgmma-split-stage", "wgmma-round-b", "wgmma-k-overlap",
                                        "wgmma-ffma", "wgmma-half", "wgmma-half-two-producers", "wgmma-tma",
                                        "wgmma-tma-b128", "wgmma-tma-direct", "wgmma-tma-only", "persistent"};
    static const char *const others[] = {"--arch=sm_80", "--precision=ieee", "-O1", "-g0", "--no-verify",
                                         "--stages=3", "-DBM=64"};
    TcOptions d;
    tc_options_default(&d);
    StrBuf ds, err;
    sb_init(&ds);
    sb_init(&err);
    tc_options_str(&d, &ds);
    int changed = 0;
    for (size_t i = 0; i < 2 * (sizeof flags / sizeof flags[0]) + sizeof others / sizeof others[0]; i++) {
        char opt[64];
        size_t nf = sizeof flags / sizeof flags[0];
        if (i < 2 * nf)
            snprintf(opt, sizeof opt, "-f%s%s", i % 2 ? "no-" : "", flags[i / 2]);
        else
            snprintf(opt, sizeof opt, "%s", others[i - 2 * nf]);
        TcOptions o;
        tc_options_default(&o);
        ck_assert_msg(tc_option_parse(&o, opt, &err) == 0, "%s: %s", opt, err.data ? err.data : "");
        if (!memcmp(&o, &d, sizeof o))
            continue; /* the default already */
        changed++;
        StrBuf os;
        sb_init(&os);
        tc_options_str(&o, &os);
        ck_assert_msg(strcmp(os.data, ds.data) != 0, "%s leaves the options string as it is: %s", opt, os.data);
        sb_free(&os);
    }
    /* one of each flag's two spellings is its default, but both of
     * persistence's (the default chooses per kernel) */
    ck_assert_int_eq(changed, (int)(sizeof flags / sizeof flags[0] + 1 + sizeof others / sizeof others[0]));
    /* --jobs changes no byte of the output (golden/rounded_entry.tir): not in the key */
    TcOptions j;
    tc_options_default(&j);
    ck_assert_int_eq(tc_option_parse(&j, "--jobs=3", &err), 0);
    ck_assert_int_eq(j.jobs, 3);
    StrBuf js;
    sb_init(&js);
    tc_options_str(&j, &js);
    ck_assert_str_eq(js.data, ds.data);
    sb_free(&js);
    sb_free(&ds);
    sb_free(&err);
}
END_TEST

/* ---- the cache ---- */

START_TEST(cache_round_trip)
{
    make_tmp();
    StrBuf log;
    sb_init(&log);
    char ptx[128];
    unsigned char cubin[3000];
    TcCacheEntry e = sample_entry(1, ptx, cubin, sizeof cubin), got;
    TcCacheKey k = key_of("round trip");
    TcCache *c = tc_cache_new(tmp_root, &log);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(tc_cache_dir(c), tmp_root);
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 0);
    tc_cache_put(c, &k, &e, &log);
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1); /* from memory */
    assert_entry_eq(&got, &e);
    ck_assert_uint_eq(got.kernels[0].ntmaps, 2);
    ck_assert_ptr_ne(got.kernels[0].tmaps, e.kernels[0].tmaps); /* a copy of its own */
    ck_assert_uint_eq(got.kernels[1].ntmaps, 0);
    ck_assert_ptr_null(got.kernels[1].tmaps);
    tc_cache_entry_free(&got);
    tc_cache_free(c);

    /* a new cache on the same directory reads it from disk */
    c = tc_cache_new(tmp_root, &log);
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
    assert_entry_eq(&got, &e);
    ck_assert_uint_eq(got.kernels[0].ntmaps, 2);
    tc_cache_entry_free(&got);
    /* no temporary files are left behind */
    ck_assert_int_eq(count_files(tmp_root), 1);

    /* an entry without a cubin (driver without a linker) */
    TcCacheKey k2 = key_of("no cubin");
    e.cubin = NULL;
    e.cubin_len = 0;
    tc_cache_put(c, &k2, &e, &log);
    tc_cache_free(c);
    c = tc_cache_new(tmp_root, &log);
    ck_assert_int_eq(tc_cache_get(c, &k2, &got, &log), 1);
    ck_assert_ptr_null(got.cubin);
    assert_entry_eq(&got, &e);
    tc_cache_entry_free(&got);

    /* dropping forgets the entry in memory and on disk */
    tc_cache_drop(c, &k2);
    ck_assert_int_eq(tc_cache_get(c, &k2, &got, &log), 0);
    ck_assert_msg(log.len == 0, "unexpected notes: %s", log.data);
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

/* The ways an entry file gets damaged: a flipped payload bit, a flipped
 * key byte, cut in half, cut inside the header, replaced by another file. */
static const char *const DAMAGE[] = {"payload", "header", "truncated", "truncated header", "foreign"};

static void damage(int kind, const char *path, size_t size)
{
    unsigned char b = 0x55;
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    if (kind == 0) {
        ck_assert_int_eq(pread(fd, &b, 1, (off_t)(size - 100)), 1);
        b ^= 0x40;
        ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)(size - 100)), 1);
    } else if (kind == 1) {
        ck_assert_int_eq(pwrite(fd, &b, 1, 20), 1); /* inside the key */
    } else if (kind == 2 || kind == 3) {
        ck_assert_int_eq(ftruncate(fd, kind == 2 ? (off_t)(size / 2) : 10), 0);
    } else {
        ck_assert_int_eq(ftruncate(fd, 0), 0);
        for (int i = 0; i < 200; i++)
            ck_assert_int_eq(write(fd, "this is not a tilec cache entry\n", 32), 32);
    }
    close(fd);
}

/* Writes an entry, damages its file, and checks that the next reader
 * reports it once, removes it, and that it can be rebuilt. */
START_TEST(cache_damaged)
{
    const char *what = DAMAGE[_i];
    make_tmp();
    StrBuf log;
    sb_init(&log);
    char ptx[128], path[4096];
    unsigned char cubin[5000];
    TcCacheEntry e = sample_entry(7, ptx, cubin, sizeof cubin), got;
    TcCacheKey k = key_of(what);
    TcCache *c = tc_cache_new(tmp_root, &log);
    tc_cache_put(c, &k, &e, &log);
    tc_cache_free(c);
    ck_assert_int_eq(tc_cache_entry_path(c = tc_cache_new(tmp_root, &log), &k, path, sizeof path), 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    damage(_i, path, (size_t)st.st_size);

    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 0);
    ck_assert_msg(log.data && strstr(log.data, "is corrupt") && strstr(log.data, "rebuilding") &&
                      strstr(log.data, path),
                  "%s: log: %s", what, LOG_TEXT(log));
    ck_assert_msg(!file_exists(path), "%s: the corrupt entry was not removed", what);
    size_t noted = log.len;
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 0);
    ck_assert_uint_eq(log.len, noted); /* reported once */
    tc_cache_put(c, &k, &e, &log);
    tc_cache_free(c);
    c = tc_cache_new(tmp_root, &log);
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
    assert_entry_eq(&got, &e);
    tc_cache_entry_free(&got);
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

/* A valid entry of another key copied under this key's name. */
START_TEST(cache_wrong_key)
{
    make_tmp();
    StrBuf log;
    sb_init(&log);
    char ptx[128], pa[4096], pb[4096];
    unsigned char cubin[100];
    TcCacheEntry e = sample_entry(3, ptx, cubin, sizeof cubin), got;
    TcCacheKey ka = key_of("a"), kb = key_of("b");
    TcCache *c = tc_cache_new(tmp_root, &log);
    tc_cache_put(c, &ka, &e, &log);
    tc_cache_entry_path(c, &ka, pa, sizeof pa);
    tc_cache_entry_path(c, &kb, pb, sizeof pb);
    tc_cache_free(c);
    ck_assert_int_eq(rename(pa, pb), 0);
    c = tc_cache_new(tmp_root, &log);
    ck_assert_int_eq(tc_cache_get(c, &kb, &got, &log), 0);
    ASSERT_LOG_HAS(log, "another key");
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

/* Rewrites the u32 at off of an entry file and fixes its checksum, so only
 * the decoder can object. */
static void patch_entry(const char *path, size_t off, uint32_t v)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    static unsigned char img[1 << 16];
    size_t n = fread(img, 1, sizeof img, f);
    ck_assert(n > 96 && n < sizeof img && off + 4 <= n);
    for (int i = 0; i < 4; i++)
        img[off + i] = (unsigned char)(v >> (8 * i));
    TcSha256 s;
    tc_sha256_init(&s);
    tc_sha256_update(&s, img, 56);
    tc_sha256_update(&s, img + 96, n - 96);
    tc_sha256_final(&s, img + 56);
    rewind(f);
    ck_assert_uint_eq(fwrite(img, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* Entries whose tensor maps a reader must refuse (the file is untrusted),
 * and the previous format, which had none. */
static const char *const BAD_TMAPS[] = {"version 1",        "kind",         "base parameter",
                                        "scalar parameter", "map count",    "element type",
                                        "batched flag",     "batch stride parameter",
                                        "round without stage", "store with stage",
                                        "optional without store"};

START_TEST(cache_tmaps_refused)
{
    const char *what = BAD_TMAPS[_i];
    make_tmp();
    StrBuf log;
    sb_init(&log);
    char ptx[128], path[4096];
    unsigned char cubin[100];
    TcCacheEntry e = sample_entry(5, ptx, cubin, sizeof cubin), got;
    static TcTmap many[TC_TMAP_MAX];
    if (_i == 1)
        tmaps_a[1].kind = TC_TMAP_PANELS + 1;
    if (_i == 2)
        tmaps_a[0].base_param = 3; /* gemm has 3 parameters */
    if (_i == 3)
        tmaps_a[1].s0.param = 3;
    if (_i == 5)
        tmaps_a[0].dtype = TC_TMAP_BF16 + 1;
    if (_i == 6)
        tmaps_a[1].batched = 2;
    if (_i == 7)
        tmaps_a[1].sb.param = 3;
    if (_i == 8) /* rounded copies of a view that is never staged */
        tmaps_a[0].stage = 0;
    if (_i == 9) /* a view the kernel stores through, staged */
        tmaps_a[0].store = 1;
    if (_i == 10) /* a map the launch may leave out that is not a store's */
        tmaps_a[0].optional = 1;
    if (_i == 4) { /* as many as a reader takes: they come back; one more is refused */
        for (unsigned i = 0; i < TC_TMAP_MAX; i++)
            many[i] = tmaps_a[i % 2];
        kernels[0].tmaps = many;
        kernels[0].ntmaps = TC_TMAP_MAX;
    }
    TcCacheKey k = key_of(what);
    TcCache *c = tc_cache_new(tmp_root, &log);
    tc_cache_put(c, &k, &e, &log);
    tc_cache_free(c);
    c = tc_cache_new(tmp_root, &log);
    ck_assert_int_eq(tc_cache_entry_path(c, &k, path, sizeof path), 0);
    if (_i == 0)
        patch_entry(path, 8, 1);
    if (_i == 4) {
        ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
        assert_entry_eq(&got, &e);
        tc_cache_entry_free(&got);
        tc_cache_free(c);
        c = tc_cache_new(tmp_root, &log);
        /* payload: nkernels, then gemm's name, threads, shared, grid, persistent, nparams, params */
        patch_entry(path, 96 + 4 + 4 + strlen("gemm") + 4 * 5 + 1 + 4 + 12 * 3, TC_TMAP_MAX + 1);
    }
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 0);
    static const char *const why[] = {"unknown format version", "bad tensor map", "bad tensor map",
                                      "bad tensor map",         "bad tensor map count", "bad tensor map",
                                      "bad tensor map",         "bad tensor map",
                                      "bad tensor map",         "bad tensor map",
                                      "bad tensor map"};
    ck_assert_msg(log.data && strstr(log.data, "is corrupt") && strstr(log.data, why[_i]), "%s: log: %s", what,
                  LOG_TEXT(log));
    ck_assert_msg(!file_exists(path), "%s: the refused entry was not removed", what);
    tc_cache_free(c);

    /* more maps than a reader takes are not written at all (memory only) */
    if (_i == 4) {
        TcTmap more[TC_TMAP_MAX + 1];
        for (unsigned i = 0; i <= TC_TMAP_MAX; i++)
            more[i] = tmaps_a[0];
        kernels[0].tmaps = more;
        kernels[0].ntmaps = TC_TMAP_MAX + 1;
        c = tc_cache_new(tmp_root, &log);
        tc_cache_put(c, &k, &e, &log);
        ck_assert(!file_exists(path));
        ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
        assert_entry_eq(&got, &e);
        tc_cache_entry_free(&got);
        tc_cache_free(c);
    }
    sb_free(&log);
    remove_tmp();
}
END_TEST

START_TEST(cache_read_only_dir)
{
    make_tmp();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ro", tmp_root);
    mkdir(dir, 0700);
    chmod(dir, 0500);
    /* root (or CAP_DAC_OVERRIDE) writes anyway: nothing to test then */
    char probe[600];
    snprintf(probe, sizeof probe, "%s/probe", dir);
    int fd = open(probe, O_WRONLY | O_CREAT, 0600);
    if (fd >= 0) {
        close(fd);
        fprintf(stderr, "cache_read_only_dir: skipped, permissions are not enforced for this user\n");
        remove_tmp();
        return;
    }
    StrBuf log;
    sb_init(&log);
    char ptx[128];
    unsigned char cubin[100];
    TcCacheEntry e = sample_entry(4, ptx, cubin, sizeof cubin), got;
    TcCacheKey k = key_of("ro");
    TcCache *c = tc_cache_new(dir, &log);
    ck_assert_ptr_nonnull(c);
    ASSERT_LOG_HAS(log, "not writable");
    tc_cache_put(c, &k, &e, &log);
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1); /* memory still works */
    tc_cache_entry_free(&got);
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

START_TEST(cache_unusable_dir)
{
    /* a directory below a regular file cannot exist, even for root */
    make_tmp();
    char file[512], dir[600];
    snprintf(file, sizeof file, "%s/plain", tmp_root);
    fclose(fopen(file, "w"));
    snprintf(dir, sizeof dir, "%s/cache", file);
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(dir, &log);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(tc_cache_dir(c));
    ASSERT_LOG_HAS(log, "without the disk cache");
    char ptx[128];
    unsigned char cubin[100];
    TcCacheEntry e = sample_entry(5, ptx, cubin, sizeof cubin), got;
    TcCacheKey k = key_of("unusable");
    tc_cache_put(c, &k, &e, &log);
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
    tc_cache_entry_free(&got);
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

/* The part of cache_full_disk that runs under the file size limit: no
 * Check calls here, since Check itself writes its results to a file. */
static int full_disk_child(void)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {.rlim_cur = 200, .rlim_max = RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 10;
    StrBuf log;
    sb_init(&log);
    char ptx[128];
    unsigned char cubin[4000];
    TcCacheEntry e = sample_entry(6, ptx, cubin, sizeof cubin), got;
    TcCacheKey k1 = key_of("full 1"), k2 = key_of("full 2");
    TcCache *c = tc_cache_new(tmp_root, &log);
    tc_cache_put(c, &k1, &e, &log);
    if (!log.data || !strstr(log.data, "cannot write"))
        return 11;
    size_t noted = log.len;
    tc_cache_put(c, &k2, &e, &log);
    if (log.len != noted) /* noted once */
        return 12;
    if (tc_cache_get(c, &k2, &got, &log) != 1) /* memory still works */
        return 13;
    tc_cache_entry_free(&got);
    tc_cache_free(c);
    sb_free(&log);
    return 0;
}

START_TEST(cache_full_disk)
{
    /* a file size limit makes writes fail like a full disk (EFBIG) */
    make_tmp();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(full_disk_child());
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "full-disk child: status %d", status);
    /* nothing half-written is left in the directory */
    ck_assert_int_eq(count_files(tmp_root), 0);
    remove_tmp();
}
END_TEST

START_TEST(cache_concurrent_writers)
{
    make_tmp();
    enum { PROCS = 8, ROUNDS = 25 };
    char ptx[128];
    static unsigned char cubin[200000];
    TcCacheEntry e = sample_entry(9, ptx, cubin, sizeof cubin);
    TcCacheKey k = key_of("concurrent");
    pid_t pids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            /* each round: a fresh cache (no memory hits), read, write */
            int bad = 0;
            for (int r = 0; r < ROUNDS && !bad; r++) {
                StrBuf log;
                sb_init(&log);
                TcCache *c = tc_cache_new(tmp_root, &log);
                TcCacheEntry got;
                if (tc_cache_get(c, &k, &got, &log)) {
                    bad |= got.cubin_len != e.cubin_len || memcmp(got.cubin, e.cubin, e.cubin_len) != 0;
                    tc_cache_entry_free(&got);
                }
                tc_cache_put(c, &k, &e, &log);
                bad |= log.len != 0; /* no corruption, no write failure */
                if (log.len)
                    fprintf(stderr, "child %d: %s", i, log.data);
                tc_cache_free(c);
                sb_free(&log);
            }
            _exit(bad);
        }
    }
    for (int i = 0; i < PROCS; i++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed", i);
    }
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(tmp_root, &log);
    TcCacheEntry got;
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
    assert_entry_eq(&got, &e);
    tc_cache_entry_free(&got);
    ck_assert_uint_eq(log.len, 0);
    ck_assert_int_eq(count_files(tmp_root), 1); /* one entry, no temporaries */
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

START_TEST(cache_memory_bound)
{
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(NULL, &log);
    ck_assert_ptr_null(tc_cache_dir(c));
    char ptx[128], name[32];
    unsigned char cubin[64];
    TcCacheEntry e = sample_entry(2, ptx, cubin, sizeof cubin), got;
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "entry %d", i);
        TcCacheKey k = key_of(name);
        tc_cache_put(c, &k, &e, &log);
    }
    TcCacheKey first = key_of("entry 0"), last = key_of("entry 199");
    ck_assert_int_eq(tc_cache_get(c, &first, &got, &log), 0); /* evicted */
    ck_assert_int_eq(tc_cache_get(c, &last, &got, &log), 1);
    tc_cache_entry_free(&got);
    ck_assert_uint_eq(log.len, 0);
    tc_cache_free(c);
    sb_free(&log);
}
END_TEST

/* The cache the runtime's settings (the environment, then opts) give. */
static TcCache *cache_from(int nopts, const char *const *opts, StrBuf *log)
{
    TcSettings s;
    int oom = 0;
    ck_assert_int_eq(tc_settings_init(&s, nopts, opts, log, &oom), 0);
    TcCache *c = tc_cache_open(s.cache, s.cache_dir, log);
    tc_settings_free(&s);
    return c;
}

static TcCache *tc_cache_from_env(StrBuf *log) { return cache_from(0, NULL, log); }

START_TEST(cache_env)
{
    StrBuf log;
    sb_init(&log);
    make_tmp();
    char want[600];
    TcCache *c;

    setenv("TILEC_CACHE_DIR", tmp_root, 1);
    setenv("TILEC_CACHE", "0", 1);
    c = tc_cache_from_env(&log);
    ck_assert_ptr_null(tc_cache_dir(c));
    tc_cache_free(c);

    /* an option over the variable */
    const char *on[] = {"--cache"}, *off[] = {"--no-cache"};
    c = cache_from(1, on, &log);
    ck_assert_str_eq(tc_cache_dir(c), tmp_root);
    tc_cache_free(c);

    unsetenv("TILEC_CACHE");
    c = tc_cache_from_env(&log);
    ck_assert_str_eq(tc_cache_dir(c), tmp_root);
    tc_cache_free(c);
    c = cache_from(1, off, &log);
    ck_assert_ptr_null(tc_cache_dir(c));
    tc_cache_free(c);
    char opt[600];
    snprintf(opt, sizeof opt, "--cache-dir=%s/by-option", tmp_root);
    const char *dir_opt[] = {opt};
    c = cache_from(1, dir_opt, &log);
    snprintf(want, sizeof want, "%s/by-option", tmp_root);
    ck_assert_str_eq(tc_cache_dir(c), want);
    tc_cache_free(c);

    unsetenv("TILEC_CACHE_DIR");
    setenv("XDG_CACHE_HOME", tmp_root, 1);
    c = tc_cache_from_env(&log);
    snprintf(want, sizeof want, "%s/tilec", tmp_root);
    ck_assert_str_eq(tc_cache_dir(c), want);
    tc_cache_free(c);

    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", tmp_root, 1);
    c = tc_cache_from_env(&log);
    snprintf(want, sizeof want, "%s/.cache/tilec", tmp_root); /* created with its parents */
    ck_assert_str_eq(tc_cache_dir(c), want);
    tc_cache_free(c);

    unsetenv("HOME");
    c = tc_cache_from_env(&log);
    ck_assert_ptr_null(tc_cache_dir(c));
    ASSERT_LOG_HAS(log, "HOME");
    tc_cache_free(c);
    sb_free(&log);
    remove_tmp();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("api");
    TCase *t = tcase_create("api");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, error_strings);
    tcase_add_test(t, version_string);
    tcase_add_test(t, null_handles);
    tcase_add_test(t, getters_before_compile);
    tcase_add_test(t, bad_option);
    tcase_add_test(t, compile_error);
    tcase_add_test(t, compile_ok_and_getters);
    tcase_add_test(t, dump_env);
    tcase_add_test(t, no_driver);
    suite_add_tcase(s, t);
    TCase *c = tcase_create("cache");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, sha256_vectors);
    tcase_add_test(c, key_fields);
    tcase_add_test(c, options_in_key);
    tcase_add_test(c, cache_round_trip);
    tcase_add_loop_test(c, cache_damaged, 0, (int)(sizeof DAMAGE / sizeof DAMAGE[0]));
    tcase_add_test(c, cache_wrong_key);
    tcase_add_loop_test(c, cache_tmaps_refused, 0, (int)(sizeof BAD_TMAPS / sizeof BAD_TMAPS[0]));
    tcase_add_test(c, cache_read_only_dir);
    tcase_add_test(c, cache_unusable_dir);
    tcase_add_test(c, cache_full_disk);
    tcase_add_test(c, cache_concurrent_writers);
    tcase_add_test(c, cache_memory_bound);
    tcase_add_test(c, cache_env);
    tcase_add_test(c, runtime_settings);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
