/*
 * Faults around the kernel cache that test_api.c does not reach: files of
 * the wrong kind where an entry belongs (a FIFO, a directory, a link to a
 * device), unrelated files beside the entries, and a read-only cache
 * directory for a user who really cannot write it (test_api's version of
 * that test skips as root, which is how CI runs; here a child process
 * drops to an unprivileged user first).
 *
 * What must hold each time: no hang, no crash, one note in the log, the
 * caller gets a miss (so it rebuilds) and the memory cache keeps working;
 * files that are not ours are left alone.
 *
 * Also here: the safety net for errors LLVM reports through its context
 * (compiler/lower.c installs a diagnostic handler; without one LLVM calls
 * exit(1) inside the host process).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compiler/compiler.h"
#include "runtime/cache.h"

static char tmp_root[256];

static void make_tmp(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp_root, sizeof tmp_root, "%s/tilec-test-faults-XXXXXX", t && t[0] ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmp_root));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    chmod(path, 0700);
    return remove(path);
}

static void remove_tmp(void)
{
    chmod(tmp_root, 0700);
    nftw(tmp_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static TcCacheKey key_of(const char *s)
{
    TcCacheKeyParts p = {.src = s, .src_len = strlen(s), .options = "-O3", .target = "sm_90a", .cc_major = 9};
    TcCacheKey k;
    tc_cache_key(&p, &k);
    return k;
}

static char ptx_text[] = ".version 8.0\n.target sm_90a\n// faults\n";
static unsigned char cubin_bytes[300];
static TirType param = {.kind = TY_PTR, .elem = ELEM_F32};
static TcKernelInfo kinfo = {.name = "k", .threads = 128, .nparams = 1, .params = &param};

static TcCacheEntry entry(void)
{
    for (size_t i = 0; i < sizeof cubin_bytes; i++)
        cubin_bytes[i] = (unsigned char)(i * 7 + 1);
    return (TcCacheEntry){.ptx = ptx_text, .ptx_len = strlen(ptx_text), .kernels = &kinfo, .nkernels = 1,
                          .cubin = cubin_bytes, .cubin_len = sizeof cubin_bytes};
}

static int same_entry(const TcCacheEntry *a, const TcCacheEntry *b)
{
    return a->ptx_len == b->ptx_len && !memcmp(a->ptx, b->ptx, a->ptx_len) && a->cubin_len == b->cubin_len &&
           !memcmp(a->cubin, b->cubin, a->cubin_len) && a->nkernels == b->nkernels &&
           !strcmp(a->kernels[0].name, b->kernels[0].name);
}

#define LOG(sb) ((sb).data ? (sb).data : "")
#define ASSERT_LOG_HAS(sb, text) ck_assert_msg(strstr(LOG(sb), text) != NULL, "log: %s", LOG(sb))

/* Puts something of another kind at k's entry path and checks the cache
 * around it. kind: 0 FIFO, 1 directory, 2 symbolic link to /dev/zero. */
static void wrong_kind(int kind)
{
    static const char *const kinds[] = {"fifo", "directory", "device link"};
    make_tmp();
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(tmp_root, &log);
    ck_assert_ptr_nonnull(c);
    TcCacheKey k = key_of(kinds[kind]);
    char path[4096];
    ck_assert_int_eq(tc_cache_entry_path(c, &k, path, sizeof path), 0);
    int made = kind == 0 ? mkfifo(path, 0600) : kind == 1 ? mkdir(path, 0700) : symlink("/dev/zero", path);
    ck_assert_int_eq(made, 0);
    TcCacheEntry got, e = entry();
    /* a FIFO without a writer would block open(); the test's timeout
     * (CK_DEFAULT_TIMEOUT) catches a hang */
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 0);
    ASSERT_LOG_HAS(log, "not a regular file");
    tc_cache_put(c, &k, &e, &log);
    if (kind == 1) /* a directory cannot be replaced by a rename: a write failure, noted */
        ASSERT_LOG_HAS(log, "cannot write");
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1); /* from memory at least */
    ck_assert(same_entry(&got, &e));
    tc_cache_entry_free(&got);
    tc_cache_free(c);
    if (kind != 1) { /* the odd file was removed and a real entry took its place */
        struct stat st;
        ck_assert_int_eq(lstat(path, &st), 0);
        ck_assert(S_ISREG(st.st_mode));
        sb_free(&log);
        sb_init(&log);
        c = tc_cache_new(tmp_root, &log);
        ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
        ck_assert(same_entry(&got, &e));
        ck_assert_uint_eq(log.len, 0);
        tc_cache_entry_free(&got);
        tc_cache_free(c);
    }
    sb_free(&log);
    remove_tmp();
}

START_TEST(cache_fifo_entry) { wrong_kind(0); }
END_TEST
START_TEST(cache_directory_entry) { wrong_kind(1); }
END_TEST
START_TEST(cache_device_link_entry) { wrong_kind(2); }
END_TEST

static void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static int file_exists(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

START_TEST(cache_foreign_neighbours)
{
    /* a shared cache directory with other things in it: a README, another
     * program's files, a temporary left by a writer that was killed, and a
     * well-formed-looking entry name holding random bytes */
    make_tmp();
    static const char readme[] = "not a cache entry\n";
    unsigned char noise[4096];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (unsigned char)(i * 2654435761u >> 13);
    write_file(tmp_root, "README", readme, sizeof readme - 1);
    write_file(tmp_root, "other-tool.cache", noise, sizeof noise);
    write_file(tmp_root, "0000000000000000000000000000000000000000000000000000000000000000.tkc.1.2.3.tmp", noise,
               100);
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(tmp_root, &log);
    TcCacheKey k = key_of("neighbours"), other = key_of("noise");
    char path[4096];
    ck_assert_int_eq(tc_cache_entry_path(c, &other, path, sizeof path), 0);
    write_file(tmp_root, strrchr(path, '/') + 1, noise, sizeof noise);
    TcCacheEntry got, e = entry();
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 0);
    ck_assert_uint_eq(log.len, 0); /* a plain miss: the neighbours are not ours to judge */
    tc_cache_put(c, &k, &e, &log);
    ck_assert_uint_eq(log.len, 0);
    tc_cache_free(c);
    c = tc_cache_new(tmp_root, &log); /* a fresh memory cache: read from disk */
    ck_assert_int_eq(tc_cache_get(c, &k, &got, &log), 1);
    ck_assert(same_entry(&got, &e));
    tc_cache_entry_free(&got);
    /* the noise under an entry's name is damage once it is asked for */
    ck_assert_int_eq(tc_cache_get(c, &other, &got, &log), 0);
    ASSERT_LOG_HAS(log, "is corrupt");
    tc_cache_free(c);
    sb_free(&log);
    ck_assert(file_exists(tmp_root, "README"));
    ck_assert(file_exists(tmp_root, "other-tool.cache"));
    ck_assert(file_exists(tmp_root, "0000000000000000000000000000000000000000000000000000000000000000.tkc.1.2.3.tmp"));
    remove_tmp();
}
END_TEST

/* The unprivileged part of cache_read_only_real: exit codes, no Check
 * calls (Check's own result file may not be writable for this user). */
static int read_only_child(const char *dir)
{
    if (getuid() == 0) { /* become nobody: root writes into 0555 directories */
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
            return 77;
    }
    char probe[600];
    snprintf(probe, sizeof probe, "%s/probe", dir);
    int fd = open(probe, O_WRONLY | O_CREAT, 0600);
    if (fd >= 0) {
        close(fd);
        return 77; /* permissions are not enforced here */
    }
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(dir, &log);
    TcCacheEntry got, e = entry();
    TcCacheKey k = key_of("prepared"), fresh = key_of("fresh"), bad = key_of("damaged");
    if (!c || !strstr(LOG(log), "not writable"))
        return 10;
    if (tc_cache_get(c, &k, &got, &log) != 1 || !same_entry(&got, &e)) /* reads still hit */
        return 11;
    tc_cache_entry_free(&got);
    size_t before = log.len;
    tc_cache_put(c, &fresh, &e, &log); /* nothing written, nothing said again */
    if (log.len != before)
        return 12;
    if (tc_cache_get(c, &fresh, &got, &log) != 1) /* memory */
        return 13;
    tc_cache_entry_free(&got);
    if (tc_cache_get(c, &bad, &got, &log) != 0 || !strstr(LOG(log), "is corrupt")) /* cannot remove it: a miss */
        return 14;
    tc_cache_free(c);
    sb_free(&log);
    return 0;
}

START_TEST(cache_read_only_real)
{
    make_tmp();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/ro", tmp_root);
    StrBuf log;
    sb_init(&log);
    TcCache *c = tc_cache_new(dir, &log); /* prepared by its owner */
    TcCacheEntry e = entry();
    TcCacheKey k = key_of("prepared"), bad = key_of("damaged");
    tc_cache_put(c, &k, &e, &log);
    tc_cache_put(c, &bad, &e, &log);
    char path[4096];
    ck_assert_int_eq(tc_cache_entry_path(c, &bad, path, sizeof path), 0);
    ck_assert_int_eq(truncate(path, 150), 0);
    tc_cache_free(c);
    ck_assert_uint_eq(log.len, 0);
    sb_free(&log);
    chmod(tmp_root, 0755);
    ck_assert_int_eq(chmod(dir, 0555), 0);
    char entry_path[4096];
    snprintf(entry_path, sizeof entry_path, "%s", path);
    chmod(entry_path, 0444);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(read_only_child(dir));
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77)
        fprintf(stderr, "cache_read_only_real: skipped, cannot become an unprivileged user here\n");
    else
        ck_assert_msg(WEXITSTATUS(st) == 0, "read-only child failed at step %d", WEXITSTATUS(st));
    ck_assert_int_eq(access(path, F_OK), 0); /* the damaged entry could not be removed: still there */
    remove_tmp();
}
END_TEST

START_TEST(llvm_error_is_a_diagnostic)
{
    /* an inline_ptx template the type checker refuses ("${0:q}": LLVM does
     * not know the modifier), put in a module built directly so that it
     * reaches LLVM anyway (the pipeline would stop at the verifier) */
    TirModule *m = tir_module_new("net.tir");
    ck_assert_ptr_nonnull(m);
    TirLoc loc = {3, 5};
    uint32_t k = tir_add_kernel(m), body = tir_add_block(m);
    m->kernels[k].name = tir_add_string(m, "net", 3);
    m->kernels[k].body = body;
    m->kernels[k].warps = 1;
    uint32_t x = tir_add_value(m, (TirType){.kind = TY_PTR, .elem = ELEM_F32}, VAL_PARAM, k, 0, 0);
    m->kernels[k].params = tir_pool_push(m, &x, 1);
    m->kernels[k].nparams = 1;
    /* %c = const 1.0; %r = inline_ptx "..." %c; %i = const 1 : i32; %z = const 0 : i32;
     * %v = view %X [%i, %i] strides [%i, %i]; %t = splat %r; store %t, %v[%z, %z] */
    uint32_t c = tir_build(m, OP_CONST, loc, tir_scalar(ELEM_F32), NULL, 0);
    m->insts[c].fval = 1.0;
    uint32_t cv = m->insts[c].result;
    uint32_t ip = tir_build(m, OP_INLINE_PTX, loc, tir_scalar(ELEM_F32), &cv, 1);
    static const char tmpl[] = "mov.b32 ${0:q}, $1;";
    m->insts[ip].str = tir_add_string(m, tmpl, sizeof tmpl - 1);
    uint32_t one = tir_build(m, OP_CONST, loc, tir_scalar(ELEM_I32), NULL, 0);
    m->insts[one].i64 = 1;
    uint32_t iv = m->insts[one].result;
    uint32_t zero = tir_build(m, OP_CONST, loc, tir_scalar(ELEM_I32), NULL, 0);
    uint32_t zv = m->insts[zero].result;
    uint32_t vargs[5] = {x, iv, iv, iv, iv};
    uint32_t view = tir_build(m, OP_VIEW, loc, (TirType){.kind = TY_VIEW, .elem = ELEM_F32, .rank = 2}, vargs, 5);
    m->insts[view].ival = 2;
    uint32_t rv = m->insts[ip].result;
    uint32_t sp = tir_build(m, OP_SPLAT, loc, tir_tile(ELEM_F32, 1, 1), &rv, 1);
    uint32_t sargs[4] = {m->insts[sp].result, m->insts[view].result, zv, zv};
    uint32_t st = tir_build(m, OP_STORE, loc, (TirType){0}, sargs, 4);
    uint32_t insts[7] = {c, ip, one, zero, view, sp, st};
    m->blocks[body].insts = tir_pool_push(m, insts, 7);
    m->blocks[body].ninsts = 7;
    m->blocks[body].args = tir_pool_push(m, NULL, 0);
    Diag vd;
    diag_init(&vd, "net.tir", NULL, 0);
    ck_assert_int_eq(tir_verify(m, &vd), 1); /* the template is the only thing wrong */
    ck_assert_msg(strstr(vd.log.data, "operand modifiers are not supported") != NULL, "%s", vd.log.data);
    diag_free(&vd);
    ck_assert(!m->oom);
    TcOptions o;
    tc_options_default(&o);
    Diag d;
    diag_init(&d, "net.tir", NULL, 0);
    TcLowered low;
    ck_assert_int_ne(tc_lower(m, &o, &low, &d), 0);
    ck_assert_msg(d.log.data && strstr(d.log.data, "LLVM cannot compile the kernel: invalid operand in inline asm"),
                  "log: %s", d.log.data ? d.log.data : "");
    free(low.llvm_ir);
    free(low.ptx);
    free(low.unit_times);
    for (unsigned i = 0; i < low.nkernels; i++) {
        free(low.kernels[i].name);
        free(low.kernels[i].params);
    }
    free(low.kernels);
    diag_free(&d);
    tir_module_free(m);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("faults");
    TCase *t = tcase_create("cache");
    tcase_add_test(t, cache_fifo_entry);
    tcase_add_test(t, cache_directory_entry);
    tcase_add_test(t, cache_device_link_entry);
    tcase_add_test(t, cache_foreign_neighbours);
    tcase_add_test(t, cache_read_only_real);
    suite_add_tcase(s, t);
    TCase *l = tcase_create("llvm");
    tcase_add_test(l, llvm_error_is_a_diagnostic);
    suite_add_tcase(s, l);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
