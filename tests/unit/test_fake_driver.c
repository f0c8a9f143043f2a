/*
 * The runtime on a fake driver (tests/fake_cuda: a libcuda.so.1 that CMake
 * puts first on this test's LD_LIBRARY_PATH), so that what it does between
 * the compiler and the driver is checked on machines without a GPU:
 * persistent launches take as many blocks as the GPU holds, not the grid;
 * tensor maps are encoded for the wgmma kernels; views are copied (rounded
 * for tf32-rna, aligned for odd strides) before the kernels that want it;
 * the autotuner loads its configurations from several threads and keeps
 * only the winner loaded; one runtime serves several threads at once;
 * hostile launch arguments fail cleanly; driver errors (no device, JIT,
 * launch, memory) reach the log by name, with the JIT's log; a cache entry
 * the driver refuses is built again. The kernels never run (gpu_test_* run
 * them on a GPU).
 */
#include <check.h>
#include <dlfcn.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_cuda.h"
#include "gemm_source.h"
#include "tilec.h"

static char GEMM[2048];
/* GEMM with C's first column %n0 + %c0 (a tenth parameter; gemm_source.h) */
static char GEMM_C0[2048];

static char cache_dir[64];
static tilecRuntime rt;
static const FakeCudaStats *fake;
static FakeCudaFailFn inject; /* fake_cuda_fail */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* a runtime on the fake device, with a cache directory of its own and
 * tilec's JIT through the fake linker (no ptxas: fast, and the same on
 * every machine) */
static void setup(void)
{
    gemm_source(GEMM, sizeof GEMM, "f32", 1, 0);
    gemm_source(GEMM_C0, sizeof GEMM_C0, "f32", 1, 1);
    snprintf(cache_dir, sizeof cache_dir, "/tmp/tilec-fake-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(cache_dir));
    setenv("TILEC_CACHE_DIR", cache_dir, 1);
    setenv("TILEC_PTXAS", "0", 1);
    tilecResult r = tilecRuntimeCreate(&rt, 0);
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(r == TILEC_SUCCESS, "%s: %s", tilecGetErrorString(r), log);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    ck_assert_msg(lib != NULL, "libcuda.so.1 is not loaded");
    FakeCudaStatsFn f = (FakeCudaStatsFn)(uintptr_t)dlsym(lib, "fake_cuda_stats");
    ck_assert_msg(f != NULL, "the libcuda.so.1 loaded is not the fake one (LD_LIBRARY_PATH)");
    fake = f();
    inject = (FakeCudaFailFn)(uintptr_t)dlsym(lib, "fake_cuda_fail");
    ck_assert_ptr_nonnull(inject);
    inject("", 0, 0);
    dlclose(lib);
}

/* the runtime unloads its own module (the copy kernels) with it */
static void teardown(void)
{
    tilecRuntimeDestroy(&rt);
    ck_assert_int_eq(fake->modules, 0);
    nftw(cache_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static tilecModule load(const char *opt)
{
    const char *opts[] = {"--arch=sm_90a", opt};
    tilecModule m = NULL;
    tilecResult r = tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", opt ? 2 : 1, opts, &m);
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(r == TILEC_SUCCESS, "%s: %s", tilecGetErrorString(r), log);
    return m;
}

/* 64 x 64 programs of a persistent GEMM launch as 132 blocks (one per
 * multiprocessor: the fake's occupancy), with TMA maps encoded; the same
 * kernel compiled -fno-persistent launches its grid. */
START_TEST(persistent_launch_takes_resident_blocks)
{
    const char *name = "";
    tilecRuntimeDeviceName(rt, &name);
    ck_assert_ptr_nonnull(strstr(name, "tilec fake driver"));
    tilecDevicePtr a, b, c;
    ck_assert_int_eq(tilecMalloc(rt, &a, 4096), TILEC_SUCCESS);
    ck_assert_int_eq(tilecMalloc(rt, &b, 4096), TILEC_SUCCESS);
    ck_assert_int_eq(tilecMalloc(rt, &c, 4096), TILEC_SUCCESS);
    int32_t M = 8192, N = 8192, K = 512;
    void *args[] = {&a, &b, &c, &M, &N, &K, &K, &N, &N};
    const unsigned grid[3] = {64, 64, 1};
    for (int persistent = 1; persistent >= 0; persistent--) {
        tilecModule m = load(persistent ? NULL : "-fno-persistent");
        unsigned launches = fake->launches, maps = fake->tensor_maps;
        tilecResult r = tilecLaunch(m, "mm", grid, NULL, args);
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        ck_assert_msg(r == TILEC_SUCCESS, "%s: %s", tilecGetErrorString(r), log);
        ck_assert_uint_eq(fake->launches, launches + 1);
        ck_assert_uint_gt(fake->tensor_maps, maps); /* A's and B's */
        if (persistent) {
            ck_assert_uint_eq(fake->grid[0], FAKE_CUDA_SMS);
            ck_assert_uint_eq(fake->grid[1], 1);
        } else {
            ck_assert_uint_eq(fake->grid[0], 64);
            ck_assert_uint_eq(fake->grid[1], 64);
        }
        ck_assert_uint_eq(fake->block[0], 512); /* two producer and two consumer warpgroups */
        ck_assert_uint_gt(fake->shared, 100000);
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    }
    ck_assert_int_eq(fake->modules, 1); /* the runtime's copy kernels (runtime/stage.h), loaded by a launch */
    tilecFree(rt, a);
    tilecFree(rt, b);
    tilecFree(rt, c);
}
END_TEST

/* -fwgmma-cluster (with -fwgmma-tma-only): the 2-D grid GEMM's entry
 * declares clusters of 2 along x (.reqnctapercluster, which the fake reads
 * and enforces as the driver does: the grid a multiple of the cluster).
 * Persistent (the default), the launch takes as many whole clusters as
 * cuOccupancyMaxActiveClusters says run at once (the fake: fewer than half
 * the SMs); one program a block, it rounds grid x up to even (an even one
 * stays). Without the option: no cluster, a block per SM. */
START_TEST(cluster_launch_pairs_blocks)
{
    tilecDevicePtr p;
    ck_assert_int_eq(tilecMalloc(rt, &p, 4096), TILEC_SUCCESS);
    int32_t M = 8192 - 128, N = 8192, K = 512; /* 63 programs along x */
    void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
    const unsigned grid[3] = {63, 64, 1};
    for (int how = 2; how >= 0; how--) { /* 2: clusters, persistent; 1: clusters, one program a block; 0: none */
        const char *opts[] = {"--arch=sm_90a", "-fwgmma-tma-only", "-fwgmma-cluster", "-fno-persistent"};
        tilecModule m = NULL;
        ck_assert_int_eq(tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", how == 2 ? 3 : how ? 4 : 1, opts, &m),
                         TILEC_SUCCESS);
        unsigned launches = fake->launches;
        tilecResult r = tilecLaunch(m, "mm", grid, NULL, args);
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        ck_assert_msg(r == TILEC_SUCCESS, "case %d: %s: %s", how, tilecGetErrorString(r), log);
        ck_assert_uint_eq(fake->launches, launches + 1);
        ck_assert_uint_eq(fake->grid[0], how == 2 ? 2 * FAKE_CUDA_CLUSTERS : how ? 64 : FAKE_CUDA_SMS);
        ck_assert_uint_eq(fake->grid[1], how == 1 ? 64 : 1);
        ck_assert_uint_eq(fake->cluster[0], how ? 2 : 0);
        ck_assert_uint_eq(fake->cluster[1], how ? 1 : 0);
        if (how) { /* fewer programs than blocks: an odd number of them, then an even one */
            const unsigned odd[3] = {5, 1, 1}, even[3] = {62, how == 2 ? 1 : 64, 1};
            ck_assert_int_eq(tilecLaunch(m, "mm", odd, NULL, args), TILEC_SUCCESS);
            ck_assert_uint_eq(fake->grid[0], 6);
            ck_assert_int_eq(tilecLaunch(m, "mm", even, NULL, args), TILEC_SUCCESS);
            ck_assert_uint_eq(fake->grid[0], 62);
            ck_assert_uint_eq(fake->cluster[0], 2);
        }
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    }
    tilecFree(rt, p);
}
END_TEST

/* The kernels launched last, oldest first, as "a b c". */
static void last_kernels(unsigned n, char *buf, size_t size)
{
    buf[0] = 0;
    for (unsigned i = fake->launches - n; i < fake->launches; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i + n == fake->launches ? "" : " ",
                 fake->kernels[i % FAKE_CUDA_KEPT]);
}

/* A new runtime, made with env=value (NULL: unset), 4 KB of device memory
 * in *p, and the GEMM loaded with opts. */
static tilecModule fresh_gemm_src(const char *src, const char *env, const char *value, const char *const *opts,
                                  int nopts, tilecDevicePtr *p)
{
    tilecRuntimeDestroy(&rt);
    if (value)
        setenv(env, value, 1);
    ck_assert_int_eq(tilecRuntimeCreate(&rt, 0), TILEC_SUCCESS);
    unsetenv(env);
    ck_assert_int_eq(tilecMalloc(rt, p, 4096), TILEC_SUCCESS);
    tilecModule m = NULL;
    ck_assert_int_eq(tilecModuleLoadSource(rt, src, strlen(src), "gemm.tir", nopts, opts, &m), TILEC_SUCCESS);
    return m;
}

static tilecModule fresh_gemm(const char *env, const char *value, const char *const *opts, int nopts,
                              tilecDevicePtr *p)
{
    return fresh_gemm_src(GEMM, env, value, opts, nopts, p);
}

/* TILEC_PERSIST_BLOCKS caps a cluster kernel's persistent launch at whole
 * clusters: 3 launches 2 blocks, 1 launches one cluster (2). */
START_TEST(cluster_persist_cap_whole_clusters)
{
    static const char *const opts[] = {"--arch=sm_90a", "-fwgmma-tma-only", "-fwgmma-cluster"};
    static const char *const caps[] = {"3", "1"};
    for (int i = 0; i < 2; i++) {
        tilecDevicePtr p;
        tilecModule m = fresh_gemm("TILEC_PERSIST_BLOCKS", caps[i], opts, 3, &p);
        int32_t M = 1024, N = 1024, K = 512;
        void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
        const unsigned grid[3] = {8, 8, 1};
        ck_assert_int_eq(tilecLaunch(m, "mm", grid, NULL, args), TILEC_SUCCESS);
        ck_assert_uint_eq(fake->grid[0], 2);
        ck_assert_uint_eq(fake->cluster[0], 2);
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        tilecFree(rt, p);
    }
}
END_TEST

/* tilecRuntimeCreateWithOptions: an option over its variable, for the
 * runtime's life (a variable set after it was made changes nothing):
 * TILEC_PERSIST_BLOCKS=5 caps a persistent launch at 5 blocks,
 * --persist-blocks=3 at 3, --persist-blocks=0 not at all (132, one per
 * multiprocessor); TILEC_STAGE=0 under --stage=always still stages the
 * odd-stride view. */
START_TEST(options_over_environment)
{
    static const struct {
        const char *opt;
        unsigned blocks;
    } cases[] = {{NULL, 5}, {"--persist-blocks=3", 3}, {"--persist-blocks=0", 132}};
    static const char *const opts[] = {"--arch=sm_90a"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tilecRuntimeDestroy(&rt);
        setenv("TILEC_PERSIST_BLOCKS", "5", 1);
        const char *o[] = {cases[i].opt};
        tilecResult r = tilecRuntimeCreateWithOptions(&rt, 0, cases[i].opt ? 1 : 0, o);
        unsetenv("TILEC_PERSIST_BLOCKS");
        ck_assert_int_eq(r, TILEC_SUCCESS);
        setenv("TILEC_PERSIST_BLOCKS", "1", 1); /* read when the runtime was made, not now */
        tilecDevicePtr p;
        ck_assert_int_eq(tilecMalloc(rt, &p, 4096), TILEC_SUCCESS);
        tilecModule m = NULL;
        ck_assert_int_eq(tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", 1, opts, &m), TILEC_SUCCESS);
        int32_t M = 8192, N = 8192, K = 512;
        void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
        const unsigned grid[3] = {64, 64, 1};
        ck_assert_int_eq(tilecLaunch(m, "mm", grid, NULL, args), TILEC_SUCCESS);
        unsetenv("TILEC_PERSIST_BLOCKS");
        ck_assert_uint_eq(fake->grid[0], cases[i].blocks);
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    }
    tilecRuntimeDestroy(&rt);
    setenv("TILEC_STAGE", "0", 1);
    static const char *const always[] = {"--stage=always"};
    tilecResult r = tilecRuntimeCreateWithOptions(&rt, 0, 1, always);
    unsetenv("TILEC_STAGE");
    ck_assert_int_eq(r, TILEC_SUCCESS);
    tilecDevicePtr p;
    ck_assert_int_eq(tilecMalloc(rt, &p, 1 << 20), TILEC_SUCCESS);
    static const char *const rne[] = {"--arch=sm_90a", "--precision=tf32-rne"};
    tilecModule m = NULL;
    ck_assert_int_eq(tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", 2, rne, &m), TILEC_SUCCESS);
    int32_t M = 256, N = 256, K = 255; /* A's rows off 16 bytes */
    void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
    const unsigned grid[3] = {2, 2, 1};
    unsigned before = fake->launches;
    ck_assert_int_eq(tilecLaunch(m, "mm", grid, NULL, args), TILEC_SUCCESS);
    char kernels[128];
    last_kernels(fake->launches - before, kernels, sizeof kernels);
    ck_assert_str_eq(kernels, "tilec_stage_b32 mm");
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
}
END_TEST

/* What tilecLaunch does before a GEMM (runtime/stage.h): a tf32-rna GEMM
 * whose views are each read by 32 programs, K >= 1024, has both copied
 * rounded first and launches the kernel's entry for rounded views
 * (mm$rounded); not with TILEC_PREROUND=0 (read when a runtime is made),
 * nor where the pool has no memory for the copies (the kernel's own entry,
 * which rounds); a tf32-rne GEMM whose A rows are off 16 bytes (K = 4095)
 * has A copied as it is, B left alone, and has one entry. */
START_TEST(launch_copies_views_first)
{
    static const struct {
        const char *precision, *preround;
        int32_t k;
        int no_pool_memory;
        unsigned launches;
        const char *kernels;
        const char *opt;  /* one more option, or NULL */
        uint32_t flags;   /* the hidden flags word mm was launched with: maps encoded (A, B, C), views rounded */
    } cases[] = {
        {"--precision=tf32-rna", NULL, 4096, 0, 3, "tilec_stage_b32_rna tilec_stage_b32_rna mm$rounded", NULL,
         0x30007},
        {"--precision=tf32-rna", "0", 4096, 0, 1, "mm", NULL, 0x7},
        {"--precision=tf32-rna", NULL, 4096, 1, 1, "mm", NULL, 0x7},
        {"--precision=tf32-rna", NULL, 64, 0, 1, "mm", NULL, 0x7}, /* small K: not worth the copies */
        {"--precision=tf32-rne", NULL, 4095, 0, 2, "tilec_stage_b32 mm", NULL, 0x7},
        {"--precision=tf32-rne", NULL, 4096, 0, 1, "mm", NULL, 0x7},
        /* A alone copied rounded: its rounded bit alone, and the entry that takes A as it comes */
        {"--precision=tf32-rna", NULL, 4096, 0, 2, "tilec_stage_b32_rna mm$rounded", "-fno-wgmma-preround-b", 0x10007},
        /* B alone copied rounded: its rounded bit alone, and the entry that rounds A in shared memory */
        {"--precision=tf32-rna", NULL, 4096, 0, 2, "tilec_stage_b32_rna mm$rounded", "-fno-wgmma-preround-a", 0x20007},
    };
    setenv("FAKE_CUDA_WATCH_PARAM", "mm:12", 1); /* 9 declared parameters, 3 maps (the JIT stores C by TMA), then the flags */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *opts[] = {"--arch=sm_90a", cases[i].precision, cases[i].opt};
        tilecDevicePtr p;
        tilecModule m = fresh_gemm("TILEC_PREROUND", cases[i].preround, opts, cases[i].opt ? 3 : 2, &p);
        int32_t M = 4096, N = 4096, K = cases[i].k;
        void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
        const unsigned grid[3] = {32, 32, 1};
        unsigned before = fake->launches;
        if (cases[i].no_pool_memory)
            inject("cuMemAllocFromPoolAsync", 2, -1); /* CUDA_ERROR_OUT_OF_MEMORY */
        tilecResult r = tilecLaunch(m, "mm", grid, NULL, args);
        inject("", 0, 0);
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        ck_assert_msg(r == TILEC_SUCCESS, "case %zu: %s", i, log);
        char got[256];
        last_kernels(fake->launches - before, got, sizeof got);
        ck_assert_msg(fake->launches - before == cases[i].launches && !strcmp(got, cases[i].kernels),
                      "case %zu: launched '%s', expected '%s'; log: %s", i, got, cases[i].kernels, log);
        int said = strstr(log, "launched its entry mm$rounded") != NULL; /* the log says which entry ran */
        ck_assert_msg(said == (strstr(cases[i].kernels, "mm$rounded") != NULL), "case %zu: log: %s", i, log);
        ck_assert_msg(fake->watched == cases[i].flags, "case %zu: flags 0x%x, expected 0x%x", i, fake->watched,
                      cases[i].flags);
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    }
    unsetenv("FAKE_CUDA_WATCH_PARAM");
}
END_TEST

/* A kernel compiled with -fwgmma-tma-only has no copies of its own: a
 * launch whose A rows are off 16 bytes (K = 4095) has A staged even on a
 * grid too small to repay it otherwise (4 programs), and without staging
 * (TILEC_STAGE=0) the launch is refused, naming the option and map 0,
 * before anything runs; aligned, it launches as any kernel. tf32-rna's
 * pre-rounding keeps its own rule (not at 4 programs, K = 64). With
 * -fwgmma-tma-store, C's rows not a multiple of 16 bytes long (N = 254)
 * refuse the launch naming C's map (2) alone, though A's (0), which
 * would have been staged, is missing too; where C's map is optional
 * (GEMM_C0) the same launch runs, and without staging it is refused
 * naming A's map, not C's, whether C's is encoded (N = 256) or not. */
START_TEST(tma_only_kernel_needs_its_maps)
{
    static const struct {
        const char *precision, *stage;
        int32_t k, n;
        tilecResult want;
        const char *kernels, *named, *unnamed;
        int c0; /* GEMM_C0 */
    } cases[] = {
        {"--precision=tf32-rne", NULL, 4096, 256, TILEC_SUCCESS, "mm", NULL, NULL, 0},
        {"--precision=tf32-rne", NULL, 4095, 256, TILEC_SUCCESS, "tilec_stage_b32 mm", NULL, NULL, 0},
        {"--precision=tf32-rne", "0", 4095, 256, TILEC_ERROR_INVALID_ARGUMENT, "", "map 0 is not", NULL, 0},
        {"--precision=tf32-rna", NULL, 64, 256, TILEC_SUCCESS, "mm", NULL, NULL, 0},
        {"--precision=tf32-rna", NULL, 4095, 256, TILEC_SUCCESS, "tilec_stage_b32 mm", NULL, NULL, 0},
        {"-fwgmma-tma-store", NULL, 4096, 256, TILEC_SUCCESS, "mm", NULL, NULL, 0},
        {"-fwgmma-tma-store", NULL, 4095, 254, TILEC_ERROR_INVALID_ARGUMENT, "", "map 2 of the view the kernel stores",
         "map 0", 0},
        {"-fwgmma-tma-store", NULL, 4095, 254, TILEC_SUCCESS, "tilec_stage_b32 mm", NULL, NULL, 1},
        {"-fwgmma-tma-store", "0", 4095, 254, TILEC_ERROR_INVALID_ARGUMENT, "", "map 0 is not", "map 2", 1},
        {"-fwgmma-tma-store", "0", 4095, 256, TILEC_ERROR_INVALID_ARGUMENT, "", "map 0 is not", "map 2", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *opts[] = {"--arch=sm_90a", cases[i].precision, "-fwgmma-tma-only"};
        tilecDevicePtr p;
        tilecModule m = fresh_gemm_src(cases[i].c0 ? GEMM_C0 : GEMM, "TILEC_STAGE", cases[i].stage, opts, 3, &p);
        int32_t M = 256, N = cases[i].n, K = cases[i].k, c0 = 0;
        int32_t ldb = 256; /* B's rows on 16 bytes: A's and C's maps are the cases' */
        void *args[] = {&p, &p, &p, &M, &N, &K, &K, &ldb, &N, &c0}; /* (c0: GEMM_C0's alone) */
        const unsigned grid[3] = {2, 2, 1};
        unsigned before = fake->launches;
        tilecResult r = tilecLaunch(m, "mm", grid, NULL, args);
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        ck_assert_msg(r == cases[i].want, "case %zu: %s: %s", i, tilecGetErrorString(r), log);
        char got[256];
        last_kernels(fake->launches - before, got, sizeof got);
        ck_assert_msg(!strcmp(got, cases[i].kernels), "case %zu: launched '%s', expected '%s'; log: %s", i, got,
                      cases[i].kernels, log);
        if (r != TILEC_SUCCESS)
            ck_assert_msg(strstr(log, "-fwgmma-tma-only") && strstr(log, cases[i].named) &&
                              (!cases[i].unnamed || !strstr(log, cases[i].unnamed)),
                          "case %zu: log: %s", i, log);
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    }
}
END_TEST

/* By default tilecModuleLoadSource compiles the GEMM with -fwgmma-tma-only:
 * an aligned launch runs it; so does one whose skewed A the staging rule
 * stages (a 32x32 grid: the copy, then the kernel); one the rule leaves
 * unstaged (A's rows off 16 bytes on a 2x2 grid) loads the kernel as asked
 * for, once (one more module), runs that and says so; unloading the module
 * unloads both. With TILEC_JIT_TMA_ONLY=0 the kernel as asked for is the
 * only one, and serves every launch. */
START_TEST(jit_tma_only_falls_back)
{
    for (int off = 0; off < 2; off++) {
        tilecRuntimeDestroy(&rt);
        if (off)
            setenv("TILEC_JIT_TMA_ONLY", "0", 1);
        ck_assert_int_eq(tilecRuntimeCreate(&rt, 0), TILEC_SUCCESS);
        unsetenv("TILEC_JIT_TMA_ONLY");
        tilecDevicePtr p;
        ck_assert_int_eq(tilecMalloc(rt, &p, 4096), TILEC_SUCCESS);
        const char *opts[] = {"--arch=sm_90a", "--precision=tf32-rne"};
        tilecModule m = NULL;
        int before_modules = fake->modules;
        ck_assert_int_eq(tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", 2, opts, &m), TILEC_SUCCESS);
        ck_assert_int_eq(fake->modules, before_modules + 1);
        int32_t M = 256, N = 256, K = 4096, odd = 4095, big = 4096;
        const unsigned grid[3] = {2, 2, 1}, many[3] = {32, 32, 1};
        void *aligned[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
        void *skewed[] = {&p, &p, &p, &M, &N, &odd, &odd, &N, &N};
        void *staged[] = {&p, &p, &p, &big, &big, &odd, &odd, &big, &big};
        int loaded = 0; /* the modules after the first staged launch: m's and the runtime's copy kernels */
        for (int round = 0; round < 2; round++) {
            unsigned launches = fake->launches;
            const char *log = "";
            ck_assert_int_eq(tilecLaunch(m, "mm", grid, NULL, aligned), TILEC_SUCCESS);
            ck_assert_int_eq(tilecLaunch(m, "mm", many, NULL, staged), TILEC_SUCCESS);
            if (!round)
                loaded = fake->modules;
            char got[256];
            last_kernels(fake->launches - launches - 1, got, sizeof got);
            ck_assert_msg(!strcmp(got, "tilec_stage_b32 mm"), "off %d: launched '%s'", off, got);
            ck_assert_int_eq(fake->modules, loaded + (round ? 1 - off : 0));
            tilecResult r = tilecLaunch(m, "mm", grid, NULL, skewed);
            tilecRuntimeGetLog(rt, &log);
            ck_assert_msg(r == TILEC_SUCCESS, "off %d round %d: %s: %s", off, round, tilecGetErrorString(r), log);
            ck_assert_uint_eq(fake->launches, launches + 4);
            ck_assert_int_eq(fake->modules, loaded + 1 - off); /* the fallback, loaded once */
            if (!round)
                ck_assert_msg((strstr(log, "TILEC_JIT_TMA_ONLY=0") != NULL) != off, "off %d: log: %s", off, log);
        }
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        ck_assert_int_eq(fake->modules, loaded - 1);
        ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    }
}
END_TEST

/* The JIT's kernel stores C only by TMA (-fwgmma-tma-store, its default):
 * where C's rows are off 16 bytes it cannot run, and the launch takes the
 * kernel as asked for (one more module), which stages A (K odd) for
 * itself; A is copied once, not first for the kernel that cannot run too.
 * N not a multiple of 4 leaves C without a map as well (a store would
 * write past the rows). With C's map, the TMA-only kernel runs after the
 * same one copy. With
 * -fno-wgmma-tma-store in the options the TMA-only kernel stores C itself
 * and serves both launches. */
START_TEST(jit_tma_store_stages_once)
{
    for (int no_store = 0; no_store < 2; no_store++) {
        tilecDevicePtr p;
        const char *opts[] = {"--arch=sm_90a", "--precision=tf32-rne", "-fno-wgmma-tma-store"};
        tilecModule m = fresh_gemm("TILEC_JIT_TMA_ONLY", NULL, opts, 2 + no_store, &p);
        int32_t big = 4096, odd = 4095, n_short = 4094;
        const unsigned many[3] = {32, 32, 1};
        void *c_mapped[] = {&p, &p, &p, &big, &big, &odd, &odd, &big, &big};
        /* C's rows on 16 bytes but N not a multiple of 4 (a store would write past them: no map),
         * then C's rows off 16 bytes */
        void *c_short[] = {&p, &p, &p, &big, &n_short, &odd, &odd, &big, &big};
        void *c_skewed[] = {&p, &p, &p, &big, &big, &odd, &odd, &big, &odd};
        void **cases[3] = {c_mapped, c_short, c_skewed};
        int modules = fake->modules;
        for (int round = 0; round < 3; round++) {
            unsigned before = fake->launches;
            const char *log = "";
            tilecResult r = tilecLaunch(m, "mm", many, NULL, cases[round]);
            tilecRuntimeGetLog(rt, &log);
            ck_assert_msg(r == TILEC_SUCCESS, "round %d: %s: %s", round, tilecGetErrorString(r), log);
            char got[256];
            last_kernels(fake->launches - before, got, sizeof got);
            size_t n = strlen(got); /* round 1: what is staged is the kernel's affair; it ends in mm */
            ck_assert_msg(round == 1 ? n >= 2 && !strcmp(got + n - 2, "mm") : !strcmp(got, "tilec_stage_b32 mm"),
                          "no_store %d round %d: launched '%s'", no_store, round, got);
            if (!round)
                modules = fake->modules; /* m's and the copy kernels' */
            else /* the kernel as asked for, for C's sake, loaded at the first launch without C's map */
                ck_assert_int_eq(fake->modules, modules + !no_store);
        }
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    }
}
END_TEST

/* Three configurations, one that does not compile: loaded from three
 * threads, the two good ones timed, one of them chosen and left loaded,
 * the bad one named in the log. */
START_TEST(autotune_loads_in_parallel)
{
    tilecRuntimeDestroy(&rt); /* one with three compile threads */
    static const char *const jobs[] = {"--tune-jobs=3"};
    ck_assert_int_eq(tilecRuntimeCreateWithOptions(&rt, 0, 1, jobs), TILEC_SUCCESS);
    static const char *const persistent[] = {"--arch=sm_90a"}, *const one[] = {"--arch=sm_90a", "-fno-persistent"};
    static const char bad[] = "kernel @mm(%A: ptr<f32>) {\n  %x = nope\n}\n";
    tilecTuneConfig cfgs[3] = {
        {.src = GEMM, .len = strlen(GEMM), .name = "a.tir", .nopts = 1, .opts = persistent, .grid = {8, 8, 1}},
        {.src = GEMM, .len = strlen(GEMM), .name = "b.tir", .nopts = 2, .opts = one, .grid = {8, 8, 1}},
        {.src = bad, .len = strlen(bad), .name = "bad.tir", .nopts = 1, .opts = persistent, .grid = {1, 1, 1}},
    };
    tilecDevicePtr p;
    ck_assert_int_eq(tilecMalloc(rt, &p, 4096), TILEC_SUCCESS);
    int32_t M = 1024, N = 1024, K = 64;
    void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
    unsigned best = 99;
    tilecModule m = NULL;
    tilecResult r = tilecAutotune(rt, "fake gemm", cfgs, 3, "mm", args, &best, &m);
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(r == TILEC_SUCCESS, "%s: %s", tilecGetErrorString(r), log);
    ck_assert_uint_lt(best, 2);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(fake->modules, 2); /* the winner and the runtime's copy kernels: the loser unloaded */
    ck_assert_msg(strstr(log, "configuration 3 skipped") && strstr(log, "bad.tir:2:"), "log: %s", log);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    ck_assert_int_eq(fake->modules, 1);
    /* asked again: remembered, nothing timed */
    unsigned launches = fake->launches, again = 99;
    ck_assert_int_eq(tilecAutotune(rt, "fake gemm", cfgs, 3, "mm", args, &again, &m), TILEC_SUCCESS);
    ck_assert_uint_eq(again, best);
    ck_assert_uint_eq(fake->launches, launches);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    tilecFree(rt, p);
}
END_TEST

/* One runtime shared by threads (tilec.h allows it): each loads its own
 * module (two of them the same, from the cache), launches it and unloads
 * it, at once; every call succeeds and nothing stays loaded but the
 * runtime's copy kernels. Run by hand under ThreadSanitizer too. */
typedef struct {
    const char *opt;
    tilecResult r;
} Sharer;

static void *share(void *arg)
{
    Sharer *w = arg;
    const char *opts[] = {"--arch=sm_90a", w->opt};
    tilecModule m = NULL;
    w->r = tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", 2, opts, &m);
    tilecDevicePtr p = 0;
    if (w->r == TILEC_SUCCESS)
        w->r = tilecMalloc(rt, &p, 4096);
    int32_t M = 512, N = 512, K = 128;
    void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
    const unsigned grid[3] = {4, 4, 1};
    for (int i = 0; i < 20 && w->r == TILEC_SUCCESS; i++)
        w->r = tilecLaunch(m, "mm", grid, NULL, args);
    if (w->r == TILEC_SUCCESS)
        w->r = tilecSynchronize(rt);
    if (p)
        tilecFree(rt, p);
    if (m)
        tilecModuleUnload(&m);
    return NULL;
}

START_TEST(runtime_shared_by_threads)
{
    Sharer w[4] = {{.opt = "--precision=tf32-rna"}, {.opt = "--precision=tf32-rne"}, {.opt = "--precision=tf32-rna"},
                   {.opt = "-fno-persistent"}};
    pthread_t t[4];
    unsigned before = fake->launches;
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, share, &w[i]), 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 4; i++)
        ck_assert_msg(w[i].r == TILEC_SUCCESS, "thread %d: %s", i, tilecGetErrorString(w[i].r));
    ck_assert_uint_eq(fake->launches - before, 80);
    ck_assert_int_le(fake->modules, 1);
}
END_TEST

/* Each thread reads its own log: while another thread's failing launches
 * (kernel names of growing length, so its log grows and is reallocated)
 * go on, this thread's log still says why its own call failed, and the
 * pointer it holds stays readable (ASan in CI). Before, one log served
 * every thread: a reader got the other thread's messages, or freed memory
 * (a review's finding, session 30). A thread that has made no call on the
 * runtime gets its latest log. */
typedef struct {
    tilecModule m;
    int n;
    tilecResult r;
    atomic_int started, done;
} Failer;

static void *fail_launches(void *arg)
{
    Failer *f = arg;
    char name[2100];
    const unsigned grid[3] = {1, 1, 1};
    void *args[1] = {NULL};
    atomic_store(&f->started, 1);
    for (int i = 0; i < f->n; i++) {
        int len = 1 + i % 2000;
        memset(name, 'k', (size_t)len);
        name[len] = 0;
        if (i % 50 == 0) /* (the reader's turn, where threads take turns: valgrind) */
            usleep(100);
        f->r = tilecLaunch(f->m, name, grid, NULL, args);
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        if (f->r != TILEC_ERROR_NOT_FOUND || !strstr(log, "no kernel @k")) {
            f->r = TILEC_ERROR_INVALID_ARGUMENT; /* (not the failure it should be, or not its log) */
            break;
        }
    }
    atomic_store(&f->done, 1);
    return NULL;
}

/* a thread's reading of rt's log, copied before the thread (and its log) ends */
static void *read_log(void *arg)
{
    char *out = arg;
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    snprintf(out, 256, "%s", log);
    return NULL;
}

static void *fail_malloc(void *arg)
{
    tilecDevicePtr d = 0;
    *(tilecResult *)arg = tilecMalloc(rt, &d, 0);
    return NULL;
}

START_TEST(threads_read_their_own_logs)
{
    tilecModule m = load(NULL);
    tilecDevicePtr d = 0;
    ck_assert_int_eq(tilecMalloc(rt, &d, 0), TILEC_ERROR_INVALID_ARGUMENT);
    const char *mine = NULL;
    tilecRuntimeGetLog(rt, &mine);
    ck_assert_ptr_nonnull(strstr(mine, "tilecMalloc"));
    Failer f = {.m = m, .n = 4000};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, fail_launches, &f), 0);
    unsigned reads = 0, others = 0;
    while (!atomic_load(&f.started))
        ;
    for (; !atomic_load(&f.done); reads++) {
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        others += log != mine || !strstr(log, "tilecMalloc") || strstr(log, "no kernel") != NULL;
    }
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_msg(f.r == TILEC_ERROR_NOT_FOUND, "the failing thread's own log: %s", tilecGetErrorString(f.r));
    ck_assert_msg(others == 0, "%u of %u reads were not this thread's log", others, reads);
    ck_assert_uint_gt(reads, 0);
    /* a thread without calls of its own: the runtime's latest log (the other thread's last failure) */
    char fresh[256] = "";
    ck_assert_int_eq(pthread_create(&t, NULL, read_log, fresh), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_msg(strstr(fresh, "no kernel @k") != NULL, "a fresh thread read '%s'", fresh);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    /* a thread whose calls all succeeded has an empty log, not another thread's failure */
    ck_assert_int_eq(tilecRuntimeDestroy(&rt), TILEC_SUCCESS);
    ck_assert_int_eq(tilecRuntimeCreate(&rt, 0), TILEC_SUCCESS);
    ck_assert_int_eq(tilecMalloc(rt, &d, 256), TILEC_SUCCESS);
    tilecResult other = TILEC_SUCCESS;
    ck_assert_int_eq(pthread_create(&t, NULL, fail_malloc, &other), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(other, TILEC_ERROR_INVALID_ARGUMENT);
    tilecRuntimeGetLog(rt, &mine);
    ck_assert_msg(strstr(mine, "tilecMalloc") == NULL, "this thread's log says '%s'", mine);
    ck_assert_int_eq(tilecFree(rt, d), TILEC_SUCCESS);
    /* a thread's log of one runtime stays put while it calls forty others (no table of a fixed
     * size giving it up: ASan in CI would see a read of freed memory) */
    tilecRuntime a = NULL, more[40];
    ck_assert_int_eq(tilecRuntimeCreate(&a, -1), TILEC_ERROR_INVALID_ARGUMENT);
    const char *first = NULL;
    tilecRuntimeGetLog(a, &first);
    char kept[256];
    snprintf(kept, sizeof kept, "%s", first);
    ck_assert_ptr_nonnull(strstr(kept, "device -1"));
    for (int k = 0; k < 40; k++)
        ck_assert_int_eq(tilecRuntimeCreate(&more[k], -2 - k), TILEC_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(first, kept);
    const char *again = NULL;
    tilecRuntimeGetLog(a, &again);
    ck_assert_str_eq(again, kept);
    for (int k = 0; k < 40; k++)
        tilecRuntimeDestroy(&more[k]);
    tilecRuntimeDestroy(&a);
}
END_TEST

/* Whatever scalars and pointers a caller passes (negative or huge extents,
 * zero or short row strides, a null or misaligned base), a launch of the
 * GEMM returns, with success or an error, and the host side of it (tensor
 * maps, staging and pre-rounding plans, the persistent grid) neither
 * crashes nor reads out of bounds (ASan in CI); the kernels never run. */
START_TEST(hostile_launch_arguments)
{
    tilecModule m = load(NULL);
    tilecDevicePtr p;
    ck_assert_int_eq(tilecMalloc(rt, &p, 1 << 16), TILEC_SUCCESS);
    static const int32_t ext[] = {-5, 0, 1, 7, 4096, INT32_MAX};
    const tilecDevicePtr bases[] = {0, p, p + 4};
    const unsigned grids[][3] = {{1, 1, 1}, {64, 64, 1}, {65535, 65535, 1}};
    unsigned launched = 0, refused = 0;
    for (size_t e = 0; e < 6 * 6 * 6; e++)
        for (size_t l = 0; l < 4; l++)
            for (size_t b = 0; b < 3; b++) {
                int32_t M = ext[e % 6], N = ext[e / 6 % 6], K = ext[e / 36];
                int32_t lda = l == 0 ? 0 : l == 1 ? K : l == 2 ? (K < INT32_MAX ? K + 1 : K) : INT32_MAX, ldb = l == 0 ? 1 : N, ldc = N;
                tilecDevicePtr a = bases[b], bb = bases[(b + 1) % 3], c = bases[(b + 2) % 3];
                void *args[] = {&a, &bb, &c, &M, &N, &K, &lda, &ldb, &ldc};
                tilecResult r = tilecLaunch(m, "mm", grids[(e + l + b) % 3], NULL, args);
                if (r == TILEC_SUCCESS)
                    launched++;
                else
                    refused++;
            }
    ck_assert_uint_eq(launched + refused, 6 * 6 * 6 * 4 * 3);
    ck_assert_uint_gt(launched, 0);
    ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
}
END_TEST

/* A grid empty along an axis (an M = 0 product) launches nothing and
 * succeeds, persistent or not: no launch, no tensor map, no staging copy,
 * where the same launch on a grid of programs makes all three (tf32-rna
 * at K = 4096: both views copied rounded). Its arguments and CUDA's grid
 * limits are still checked. tilecAutotune skips a configuration with such
 * a grid (it would win in no time), and finds none when all are. */
START_TEST(empty_grid_launches_nothing)
{
    static const char *const persistent[] = {"--arch=sm_90a", "--precision=tf32-rna"},
                             *const one[] = {"--arch=sm_90a", "--precision=tf32-rna", "-fno-persistent"};
    static const unsigned grids[][3] = {{0, 32, 1}, {32, 0, 1}, {32, 32, 0}, {0, 0, 0}}, full[3] = {32, 32, 1};
    for (int pers = 1; pers >= 0; pers--) {
        tilecDevicePtr p;
        tilecModule m = fresh_gemm("TILEC_PREROUND", NULL, pers ? persistent : one, pers ? 2 : 3, &p);
        int32_t M = 4096, N = 4096, K = 4096;
        void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
        void *nullarg[] = {&p, NULL, &p, &M, &N, &K, &K, &N, &N};
        for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
            unsigned launches = fake->launches, maps = fake->tensor_maps, pool = fake->pool_allocs;
            tilecResult r = tilecLaunch(m, "mm", grids[g], NULL, args);
            const char *log = "";
            tilecRuntimeGetLog(rt, &log);
            ck_assert_msg(r == TILEC_SUCCESS, "%s: %s", tilecGetErrorString(r), log);
            ck_assert_uint_eq(fake->launches, launches);
            ck_assert_uint_eq(fake->tensor_maps, maps);
            ck_assert_uint_eq(fake->pool_allocs, pool);
            ck_assert_int_eq(tilecLaunch(m, "mm", grids[g], NULL, nullarg), TILEC_ERROR_INVALID_ARGUMENT);
        }
        if (!pers) { /* one program a block: y and z at most 65535, empty or not */
            const unsigned tall[3] = {0, 70000, 1};
            ck_assert_int_eq(tilecLaunch(m, "mm", tall, NULL, args), TILEC_ERROR_INVALID_ARGUMENT);
        }
        unsigned launches = fake->launches, maps = fake->tensor_maps, pool = fake->pool_allocs;
        ck_assert_int_eq(tilecLaunch(m, "mm", full, NULL, args), TILEC_SUCCESS); /* the control */
        ck_assert_uint_eq(fake->launches, launches + 3); /* two rounding copies, then mm$rounded */
        ck_assert_uint_gt(fake->tensor_maps, maps);
        ck_assert_uint_gt(fake->pool_allocs, pool);
        ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
        ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    }
    tilecTuneConfig cfgs[2] = {
        {.src = GEMM, .len = strlen(GEMM), .name = "a.tir", .nopts = 1, .opts = persistent, .grid = {0, 8, 1}},
        {.src = GEMM, .len = strlen(GEMM), .name = "b.tir", .nopts = 1, .opts = persistent, .grid = {8, 8, 1}},
    };
    tilecDevicePtr p;
    ck_assert_int_eq(tilecMalloc(rt, &p, 4096), TILEC_SUCCESS);
    int32_t M = 1024, N = 1024, K = 64;
    void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
    unsigned best = 99;
    tilecModule m = NULL;
    tilecResult r = tilecAutotune(rt, "empty grid", cfgs, 2, "mm", args, &best, &m);
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(r == TILEC_SUCCESS, "%s: %s", tilecGetErrorString(r), log);
    ck_assert_uint_eq(best, 1);
    ck_assert_msg(strstr(log, "configuration 1 skipped: its grid (0, 8, 1) is empty"), "log: %s", log);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    cfgs[1].grid[2] = 0;
    ck_assert_int_eq(tilecAutotune(rt, "all empty", cfgs, 2, "mm", args, &best, &m), TILEC_ERROR_NOT_FOUND);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
}
END_TEST

/* A JIT failure comes back as TILEC_ERROR_JIT with the driver's error
 * name and its JIT log; the runtime keeps working. */
START_TEST(jit_error_is_named)
{
    inject("cuLinkAddData_v2", 218, 1); /* CUDA_ERROR_INVALID_PTX */
    const char *opts[] = {"--arch=sm_90a"};
    tilecModule m = NULL;
    tilecResult r = tilecModuleLoadSource(rt, GEMM, strlen(GEMM), "gemm.tir", 1, opts, &m);
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_int_eq(r, TILEC_ERROR_JIT);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(log, "cuLinkAddData: CUDA_ERROR_INVALID_PTX"), "log: %s", log);
    ck_assert_msg(strstr(log, "fake-jit: error: cuLinkAddData_v2 was told to fail"), "log: %s", log);
    m = load(NULL);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
}
END_TEST

/* A failed launch is TILEC_ERROR_LAUNCH with the driver's error by name;
 * device memory running out is named with the size asked for. */
START_TEST(launch_and_memory_errors_are_named)
{
    tilecModule m = load(NULL);
    tilecDevicePtr p;
    ck_assert_int_eq(tilecMalloc(rt, &p, 4096), TILEC_SUCCESS);
    int32_t M = 256, N = 256, K = 64;
    void *args[] = {&p, &p, &p, &M, &N, &K, &K, &N, &N};
    const unsigned grid[3] = {2, 2, 1};
    inject("cuLaunchKernel", 719, 1); /* CUDA_ERROR_LAUNCH_FAILED */
    const char *log = "";
    ck_assert_int_eq(tilecLaunch(m, "mm", grid, NULL, args), TILEC_ERROR_LAUNCH);
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(strstr(log, "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED"), "log: %s", log);
    ck_assert_int_eq(tilecLaunch(m, "mm", grid, NULL, args), TILEC_SUCCESS);
    tilecDevicePtr q;
    tilecResult r = tilecMalloc(rt, &q, (size_t)1 << 40); /* the fake device has 4 GB */
    tilecRuntimeGetLog(rt, &log);
    ck_assert_int_eq(r, TILEC_ERROR_OUT_OF_MEMORY); /* a caller may try less */
    ck_assert_msg(strstr(log, "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY") && strstr(log, "1099511627776 bytes"), "log: %s",
                  log);
    ck_assert_int_eq(tilecFree(rt, p), TILEC_SUCCESS);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
}
END_TEST

/* A cache entry on disk that the driver refuses (a new driver, a damaged
 * cubin) is dropped and built again, with a note; the load succeeds. */
START_TEST(refused_cache_entry_is_rebuilt)
{
    tilecModule m = load(NULL);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
    tilecRuntimeDestroy(&rt); /* a new runtime: the entry comes from disk */
    ck_assert_int_eq(tilecRuntimeCreate(&rt, 0), TILEC_SUCCESS);
    inject("cuModuleLoadData", 200, 1); /* CUDA_ERROR_INVALID_IMAGE, once */
    m = load(NULL);
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(strstr(log, "the driver refused a cached entry; rebuilding it") &&
                      strstr(log, "CUDA_ERROR_INVALID_IMAGE"),
                  "log: %s", log);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
}
END_TEST

/* A driver that reports no GPU: the runtime handle holds the reason
 * (its own process: the driver is initialized once per process). */
/* a failing call replaces the log, a NULL argument's too: the log never
 * blames an earlier call */
static void log_says(const char *what)
{
    const char *log = "";
    tilecRuntimeGetLog(rt, &log);
    ck_assert_msg(strstr(log, what) != NULL, "log '%s' does not say '%s'", log, what);
}

START_TEST(bad_arguments_are_logged)
{
    unsigned launches = fake->launches; /* (CK_FORK=no: earlier tests' too) */
    tilecDevicePtr d = 0;
    ck_assert_int_eq(tilecMalloc(rt, &d, 0), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("tilecMalloc");
    tilecModule m = NULL;
    ck_assert_int_eq(tilecModuleLoad(rt, NULL, &m), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("tilecModuleLoad: the program is NULL");
    ck_assert_int_eq(tilecMemcpyHtoD(rt, 0, NULL, 8), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("tilecMemcpyHtoD: dst or src is NULL");
    ck_assert_int_eq(tilecModuleLoadSource(rt, NULL, 5, NULL, 0, NULL, &m), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("tilecModuleLoadSource: src is NULL");
    /* counted as the caller counts its options, not after those the JIT adds (a review's finding) */
    static const char *const second_null[] = {"--arch=sm_80", NULL};
    ck_assert_int_eq(tilecModuleLoadSource(rt, "", 0, NULL, 2, second_null, &m), TILEC_ERROR_INVALID_OPTION);
    log_says("option 1 is NULL");
    unsigned best = 0;
    tilecTuneConfig cfg = {.src = GEMM, .len = strlen(GEMM), .grid = {1, 1, 1}};
    ck_assert_int_eq(tilecAutotune(rt, "k", &cfg, 1, "gemm", NULL, &best, &m), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("tilecAutotune: args is NULL");
    static const char *const null_opt[] = {NULL};
    tilecTuneConfig two[2] = {cfg, cfg};
    two[1].nopts = 1, two[1].opts = null_opt;
    void *none[1] = {NULL};
    ck_assert_int_eq(tilecAutotune(rt, "k", two, 2, "gemm", none, &best, &m), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("cfgs[1] (configuration 2 of 2) has no source, or a NULL option"); /* counted as the log's notes */
    ck_assert_uint_eq(fake->launches, launches); /* rejected before anything was compiled or run */
    /* one program a block: CUDA's grid limits, said before the driver's error */
    m = load("-fno-persistent");
    ck_assert_int_eq(tilecMalloc(rt, &d, 1 << 16), TILEC_SUCCESS);
    int32_t M = 64, N = 64, K = 64;
    void *args[] = {&d, &d, &d, &M, &N, &K, &K, &N, &N};
    const unsigned tall[3] = {1, 70000, 1}, wide[3] = {1u << 31, 1, 1}, ok[3] = {1, 65535, 1};
    ck_assert_int_eq(tilecLaunch(m, "mm", tall, NULL, args), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("y and z at most 65535");
    ck_assert_int_eq(tilecLaunch(m, "mm", wide, NULL, args), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("x at most 2^31 - 1");
    ck_assert_int_eq(tilecLaunch(m, "mm", ok, NULL, args), TILEC_SUCCESS);
    ck_assert_int_eq(tilecFree(rt, d), TILEC_SUCCESS);
    ck_assert_int_eq(tilecModuleUnload(&m), TILEC_SUCCESS);
}
END_TEST

/* tilecEventElapsed: both recorded, start first (INVALID_STATE otherwise,
 * whatever the driver would say) */
START_TEST(event_order_is_checked)
{
    tilecEvent a = NULL, b = NULL;
    ck_assert_int_eq(tilecEventCreate(rt, &a), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventCreate(rt, &b), TILEC_SUCCESS);
    float ms = -1;
    ck_assert_int_eq(tilecEventElapsed(a, b, &ms), TILEC_ERROR_INVALID_STATE);
    log_says("neither event has been recorded");
    ck_assert_int_eq(tilecEventRecord(b, NULL), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventElapsed(a, b, &ms), TILEC_ERROR_INVALID_STATE);
    log_says("the start event has not been recorded");
    ck_assert_int_eq(tilecEventRecord(a, NULL), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventElapsed(a, b, &ms), TILEC_ERROR_INVALID_STATE);
    log_says("the end event was recorded before the start event");
    ck_assert_int_eq(tilecEventRecord(b, NULL), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventElapsed(a, b, &ms), TILEC_SUCCESS);
    ck_assert(ms >= 0);
    ck_assert_int_eq(tilecEventElapsed(a, b, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    log_says("tilecEventElapsed: ms is NULL");
    ck_assert_int_eq(tilecEventDestroy(&a), TILEC_SUCCESS);
    ck_assert_int_eq(tilecEventDestroy(&b), TILEC_SUCCESS);
}
END_TEST

/* A fresh process whose cuInit fails with code: tilecRuntimeCreate gives
 * want, and its log names the error and says what it means (note). */
static void cuinit_fails(int code, const char *name, tilecResult want, const char *note)
{
    const char *fork = getenv("CK_FORK");
    if (fork && !strcmp(fork, "no"))
        return; /* the driver was initialized by an earlier test in this process */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    ck_assert_ptr_nonnull(lib);
    FakeCudaFailFn order = (FakeCudaFailFn)(uintptr_t)dlsym(lib, "fake_cuda_fail");
    ck_assert_ptr_nonnull(order);
    order("cuInit", code, -1);
    tilecRuntime r = NULL;
    tilecResult t = tilecRuntimeCreate(&r, 0);
    const char *log = "";
    tilecRuntimeGetLog(r, &log);
    ck_assert_msg(t == want, "%s: %s", tilecGetErrorString(t), log);
    ck_assert_msg(strstr(log, name) && strstr(log, note), "log: %s", log);
    tilecModule m = NULL; /* every call on it says the same */
    ck_assert_int_eq(tilecModuleLoadSource(r, GEMM, strlen(GEMM), "gemm.tir", 0, NULL, &m), want);
    ck_assert_int_eq(tilecRuntimeDestroy(&r), TILEC_SUCCESS);
    order("", 0, 0);
    dlclose(lib);
}

START_TEST(no_device)
{
    cuinit_fails(100, "cuInit: CUDA_ERROR_NO_DEVICE", TILEC_ERROR_NO_DEVICE,
                 "the NVIDIA driver is installed but reports no usable GPU");
}
END_TEST

/* the toolkit's stub libcuda.so.1 is no driver, as embed.c's skip path expects */
START_TEST(stub_driver)
{
    cuinit_fails(34, "cuInit: CUDA_ERROR_STUB_LIBRARY", TILEC_ERROR_NO_DRIVER, "the CUDA toolkit's stub");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fake_driver");
    TCase *tc = tcase_create("fake_driver");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, persistent_launch_takes_resident_blocks);
    tcase_add_test(tc, launch_copies_views_first);
    tcase_add_test(tc, tma_only_kernel_needs_its_maps);
    tcase_add_test(tc, jit_tma_only_falls_back);
    tcase_add_test(tc, jit_tma_store_stages_once);
    tcase_add_test(tc, options_over_environment);
    tcase_add_test(tc, cluster_launch_pairs_blocks);
    tcase_add_test(tc, cluster_persist_cap_whole_clusters);
    tcase_add_test(tc, autotune_loads_in_parallel);
    tcase_add_test(tc, runtime_shared_by_threads);
    tcase_add_test(tc, threads_read_their_own_logs);
    tcase_add_test(tc, hostile_launch_arguments);
    tcase_add_test(tc, empty_grid_launches_nothing);
    tcase_add_test(tc, jit_error_is_named);
    tcase_add_test(tc, launch_and_memory_errors_are_named);
    tcase_add_test(tc, refused_cache_entry_is_rebuilt);
    tcase_add_test(tc, bad_arguments_are_logged);
    tcase_add_test(tc, event_order_is_checked);
    suite_add_tcase(s, tc);
    TCase *alone = tcase_create("fresh_process");
    tcase_add_test(alone, no_device);
    tcase_add_test(alone, stub_driver);
    suite_add_tcase(s, alone);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
