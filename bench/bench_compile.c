/*
 * Compile-time measurements for the GEMM benchmark, and small utilities it
 * shares with bench_gemm.c (clock, median, temporary directories, the GEMM
 * source template).
 *
 * Three views of "how long does a kernel take to build": the `tilec`
 * command as a whole process (what a build system pays), the compiler
 * in-process (what an embedder pays per program), and the JIT path through
 * the API cold and warm (what the first launch of a kernel pays, with and
 * without tilec's kernel cache).
 */
#include "bench.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void bench_rmtree(const char *dir)
{
    if (dir && dir[0])
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int bench_gemm_source(char *buf, size_t size, const char *elem, int bm, int bn, int bk, int warps, int group,
                      unsigned layout)
{
    char order[640];
    if (group > 0) /* a 1-D grid: program p takes the tile at row first + (p % per) % gm, column (p % per) / gm
                      of the group of gm <= G rows of tiles from first = (p / per) * G, per = G * tiles per row */
        snprintf(order, sizeof order,
                 "  %%p = program_id 0\n"
                 "  %%tm = cdiv %%M, %d\n"
                 "  %%tn = cdiv %%N, %d\n"
                 "  %%per = mul %%tn, %d\n"
                 "  %%grp = div %%p, %%per\n"
                 "  %%first = mul %%grp, %d\n"
                 "  %%left = sub %%tm, %%first\n"
                 "  %%gm = min %%left, %d\n"
                 "  %%in = rem %%p, %%per\n"
                 "  %%im = rem %%in, %%gm\n"
                 "  %%pm = add %%first, %%im\n"
                 "  %%pn = div %%in, %%gm\n",
                 bm, bn, group, group, group);
    else
        snprintf(order, sizeof order, "  %%pm = program_id 0\n  %%pn = program_id 1\n");
    return snprintf(buf, size,
                    "// C = A @ B, row-major%s, one %dx%d tile of C per program (bench/bench_gemm.c)\n"
                    "kernel @gemm(%%A: ptr<%s>, %%B: ptr<%s>, %%C: ptr<f32>, %%M: i32, %%N: i32, %%K: i32,\n"
                    "             %%lda: i32, %%ldb: i32, %%ldc: i32) warps(%d) {\n"
                    "%s"
                    "  %%m0 = mul %%pm, %d\n"
                    "  %%n0 = mul %%pn, %d\n"
                    "  %%va = view %%A [%%M, %%K] strides %s\n"
                    "  %%vb = view %%B [%%K, %%N] strides %s\n"
                    "  %%vc = view %%C [%%M, %%N] strides [%%ldc, 1]\n"
                    "  %%z = zeros : tile<%dx%dxf32>\n"
                    "  %%acc = for %%k = 0 to %%K step %d iter(%%c = %%z) {\n"
                    "    %%a = load %%va[%%m0, %%k] : tile<%dx%dx%s>\n"
                    "    %%b = load %%vb[%%k, %%n0] : tile<%dx%dx%s>\n"
                    "    %%d = dot %%a, %%b, %%c : tile<%dx%dxf32>\n"
                    "    yield %%d\n"
                    "  }\n"
                    "  store %%acc, %%vc[%%m0, %%n0]\n"
                    "}\n",
                    layout == (BENCH_A_MMAJOR | BENCH_B_KMAJOR) ? " (A M-major: stored K x M; B K-major: stored N x K)"
                    : layout & BENCH_A_MMAJOR                   ? " (A M-major: stored K x M)"
                    : layout & BENCH_B_KMAJOR                   ? " (B K-major: stored N x K)"
                                                                : "",
                    bm, bn, elem, elem, warps, order, bm, bn, layout & BENCH_A_MMAJOR ? "[1, %lda]" : "[%lda, 1]",
                    layout & BENCH_B_KMAJOR ? "[1, %ldb]" : "[%ldb, 1]", bm, bn, bk, bm, bk, elem, bk, bn, elem, bm, bn);
}

/* Fills a row from samples (sorted by bench_median); ms_first is the first
 * run of the measurement, which pays one-time costs (LLVM's target set-up,
 * the driver's JIT start) when it is the first of the process. */
static void put_row(CompileTime *out, int *n, int max, const char *what, double *v, int runs, const char *note)
{
    if (*n >= max)
        return;
    CompileTime *c = &out[(*n)++];
    snprintf(c->what, sizeof c->what, "%s", what);
    c->ms_first = v[0];
    c->ms_median = bench_median(v, runs);
    c->ms_min = v[0];
    c->runs = runs;
    snprintf(c->note, sizeof c->note, "%s", note);
}

/* The options of c's compiles: --arch, --precision, then c's extra ones
 * (at most MAX_EXTRA). */
enum { MAX_EXTRA = 8 };
typedef struct {
    char arch[64], precision[64];
    const char *v[2 + MAX_EXTRA];
    int n;
} Options;

static void compile_options(const BenchCompile *c, Options *o)
{
    snprintf(o->arch, sizeof o->arch, "--arch=%s", c->arch);
    snprintf(o->precision, sizeof o->precision, "--precision=%s", c->precision);
    o->v[0] = o->arch;
    o->v[1] = o->precision;
    o->n = 2;
    for (int i = 0; i < c->nextra && i < MAX_EXTRA; i++)
        o->v[o->n++] = c->extra[i];
}

/* A row's name: kind, the arch, the precision and the extra options. */
static void row_name(char *buf, size_t size, const char *kind, const BenchCompile *c)
{
    int k = snprintf(buf, size, "%s %s %s", kind, c->arch, c->precision);
    for (int i = 0; i < c->nextra && k >= 0 && (size_t)k < size; i++)
        k += snprintf(buf + k, size - (size_t)k, " %s", c->extra[i]);
}

static int make_tmpdir(char *dir, size_t n, const char *tag)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, n, "%s/tilec-bench-%s-XXXXXX", t && t[0] ? t : "/tmp", tag);
    return mkdtemp(dir) ? 0 : -1;
}

int bench_compile_process(const char *tilec, const BenchCompile *c, CompileTime *out, int *n, int max, char *why,
                          size_t wn)
{
    char dir[256], file[300];
    int runs = c->runs;
    if (make_tmpdir(dir, sizeof dir, "proc") != 0) {
        snprintf(why, wn, "cannot make a temporary directory");
        return -1;
    }
    snprintf(file, sizeof file, "%s/gemm.tir", dir);
    FILE *f = fopen(file, "w");
    int ok = f && fputs(c->src, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        snprintf(why, wn, "cannot write %s", file);
        bench_rmtree(dir);
        return -1;
    }
    Options o;
    compile_options(c, &o);
    char *argv[4 + 2 + MAX_EXTRA] = {(char *)tilec};
    int argc = 1;
    for (int i = 0; i < o.n; i++)
        argv[argc++] = (char *)o.v[i];
    argv[argc++] = "-o";
    argv[argc++] = "/dev/null";
    argv[argc++] = file;
    double *v = calloc((size_t)runs, sizeof *v);
    int rc = v ? 0 : -1;
    for (int i = 0; v && i < runs && rc == 0; i++) {
        double t0 = bench_now_ms();
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 1);
            execv(tilec, argv);
            _exit(127);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            char what[128];
            row_name(what, sizeof what, tilec, c);
            snprintf(why, wn, "%s %s failed (status %d)", what, file, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
            rc = -1;
        }
        v[i] = bench_now_ms() - t0;
    }
    if (rc == 0) {
        char what[128];
        row_name(what, sizeof what, "process", c);
        put_row(out, n, max, what, v, runs, "the whole tilec process: .tir file -> PTX file");
    }
    free(v);
    bench_rmtree(dir);
    return rc;
}

int bench_compile_inprocess(const BenchCompile *c, CompileTime *out, int *n, int max, char *why, size_t wn)
{
    Options o;
    compile_options(c, &o);
    int runs = c->runs;
    double *v = calloc((size_t)runs, sizeof *v);
    if (!v)
        return -1;
    int rc = 0;
    for (int i = 0; i < runs && rc == 0; i++) {
        tilecProgram p = NULL;
        double t0 = bench_now_ms();
        tilecResult r = tilecCreateProgram(&p, c->src, strlen(c->src), "gemm.tir");
        if (r == TILEC_SUCCESS)
            r = tilecCompileProgram(p, o.n, o.v);
        v[i] = bench_now_ms() - t0;
        if (r != TILEC_SUCCESS) {
            const char *log = "";
            if (p)
                tilecGetProgramLog(p, &log);
            snprintf(why, wn, "compiling the GEMM: %s\n%s", tilecGetErrorString(r), log);
            rc = -1;
        }
        tilecDestroyProgram(&p);
    }
    if (rc == 0) {
        char what[128];
        row_name(what, sizeof what, "compile", c);
        put_row(out, n, max, what, v, runs, "tilecCompileProgram in-process (.tir -> PTX)");
    }
    free(v);
    return rc;
}

/* One timed tilecModuleLoadSource on rt; the module is unloaded again. */
static int timed_load(tilecRuntime rt, const char *src, int nopts, const char *const *opts, double *ms, char *why,
                      size_t wn)
{
    tilecModule m = NULL;
    double t0 = bench_now_ms();
    tilecResult r = tilecModuleLoadSource(rt, src, strlen(src), "gemm.tir", nopts, opts, &m);
    *ms = bench_now_ms() - t0;
    if (r != TILEC_SUCCESS) {
        const char *log = "";
        tilecRuntimeGetLog(rt, &log);
        snprintf(why, wn, "tilecModuleLoadSource: %s\n%s", tilecGetErrorString(r), log);
        return -1;
    }
    tilecModuleUnload(&m);
    return 0;
}

/* A runtime whose kernel cache is on dir (whatever the environment says). */
static tilecResult runtime_on(tilecRuntime *rt, int device, const char *dir)
{
    char opt[300];
    snprintf(opt, sizeof opt, "--cache-dir=%s", dir);
    const char *opts[] = {opt};
    return tilecRuntimeCreateWithOptions(rt, device, 1, opts);
}

int bench_compile_jit(int device, const BenchCompile *c, CompileTime *out, int *n, int max, char *why, size_t wn)
{
    Options o;
    compile_options(c, &o);
    int runs = c->runs;
    double *cold = calloc((size_t)runs, sizeof *cold), *disk = calloc((size_t)runs, sizeof *disk);
    double *mem = calloc((size_t)runs, sizeof *mem);
    char dirs[2][256] = {"", ""}; /* [0] keeps the warm entry, [1] is per cold run */
    int rc = cold && disk && mem ? 0 : -1;
    for (int i = 0; i < runs && rc == 0; i++) {
        char *dir = dirs[i == 0 ? 0 : 1];
        if (make_tmpdir(dir, sizeof dirs[0], "jit") != 0) {
            snprintf(why, wn, "cannot make a temporary directory");
            rc = -1;
            break;
        }
        tilecRuntime rt = NULL;
        if (runtime_on(&rt, device, dir) != TILEC_SUCCESS) {
            snprintf(why, wn, "tilecRuntimeCreate(%d) failed", device);
            rc = -1;
        } else {
            rc = timed_load(rt, c->src, o.n, o.v, &cold[i], why, wn);
        }
        tilecRuntimeDestroy(&rt);
        if (i > 0) {
            bench_rmtree(dir);
            dir[0] = 0;
        }
    }
    for (int i = 0; i < runs && rc == 0; i++) {
        tilecRuntime rt = NULL;
        if (runtime_on(&rt, device, dirs[0]) != TILEC_SUCCESS) {
            snprintf(why, wn, "tilecRuntimeCreate(%d) failed", device);
            rc = -1;
        } else if ((rc = timed_load(rt, c->src, o.n, o.v, &disk[i], why, wn)) == 0) {
            rc = timed_load(rt, c->src, o.n, o.v, &mem[i], why, wn);
        }
        tilecRuntimeDestroy(&rt);
    }
    if (rc == 0) {
        char what[128];
        row_name(what, sizeof what, "jit-cold", c);
        put_row(out, n, max, what, cold, runs,
                "tilecModuleLoadSource with an empty cache: compile + driver link (ptxas) + load");
        row_name(what, sizeof what, "jit-warm-disk", c);
        put_row(out, n, max, what, disk, runs,
                "tilecModuleLoadSource from a new runtime with the entry on disk: read + load");
        row_name(what, sizeof what, "jit-warm-memory", c);
        put_row(out, n, max, what, mem, runs,
                "tilecModuleLoadSource again on the same runtime: memory hit + load");
    }
    for (int i = 0; i < 2; i++)
        bench_rmtree(dirs[i]);
    free(cold);
    free(disk);
    free(mem);
    return rc;
}
