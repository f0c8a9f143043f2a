/*
 * bench_gemm: tilec's GEMM kernels against cuBLAS on the same inputs, in one
 * process, plus tilec's compile times. See BENCHMARKS.md for the method and
 * `bench_gemm --help` for the options.
 *
 * Method, in short: row-major A[M,K], B[K,N], C[M,N] (f32, or bf16 inputs
 * with f32 output); inputs uniform in [-0.5, 0.5) from a fixed splitmix64
 * stream (bench/triton_gemm.py draws the same numbers); several copies of A
 * and B rotated so that the inputs never sit in L2 (working set >= 4x L2);
 * CUDA events on the legacy default stream around batches of back-to-back
 * launches (each batch >= --batch-ms), after a warm-up; the median of
 * >= --reps batches. Accuracy: relative Frobenius error against an fp64
 * product of the f32 inputs, computed on the host for --sample-rows rows
 * spread over M (the first and last included), for every kernel.
 *
 * Exit status: 0 done (rows that failed are marked in the tables), 1 a
 * setup error, 2 bad usage, 77 no GPU.
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SHAPES = 32, MAX_VARIANTS = 64, MAX_BATCHES = 500, MAX_COPIES = 256, MAX_COMPILE_ROWS = 32 };

typedef struct {
    int M, N, K;
} Shape;

typedef struct {
    int bm, bn, bk, warps;
    int group;  /* >0: grouped tile order (bench_gemm_source) */
    int stages; /* >0: --stages=N for its kernels */
    int persistent; /* 1: -fpersistent for its kernels, -1: -fno-persistent, 0: the default */
} Tile;

/* What a row's speed is compared with: the cuBLAS call of the same kind. */
typedef enum { FAM_FP32, FAM_TF32, FAM_BF16 } Family;
/* --copt=OPT (repeatable): more compile options for every tilec kernel */
enum { MAX_COPTS = 4 };
static const char *extra_copts[MAX_COPTS];
static int nextra_copts;
/* --b-kmajor, --a-mmajor: B stored N x K (row-major B^T), A stored K x M
 * (row-major A^T), for every kernel, cuBLAS's too (BENCH_B_KMAJOR | BENCH_A_MMAJOR) */
static unsigned layout;
/* --b-bytes-swapped (a diagnostic): B's bytes uploaded in the other layout
 * than the kernels read, so that a layout's time can be told from its
 * data's (square shapes; the results are wrong: only the times count) */
static int b_bytes_swapped;

static const char *const family_base[] = {"cublas-sgemm", "cublas-tf32", "cublas-bf16"};

typedef struct {
    int is_cublas;
    char mode[16]; /* tilec: its --precision, or "bf16"; cuBLAS: sgemm, tf32, bf16 */
    char arch[8];  /* tilec target; "-" for cuBLAS */
    Tile tile;
    int bf16;
    int autotune;     /* a row whose tile tilecAutotune picks per shape among tiles[] */
    Tile tiles[8];
    int ntiles;
    Family fam;
    tilecModule mod;
    BenchCublasMode cmode;
    char error[512]; /* set when the variant could not be built */
} Variant;

typedef struct {
    const Variant *v;
    Shape s;
    double ms_med, ms_min, ms_max, tflops, ratio, err;
    double host_us; /* host time to issue one launch into an empty queue */
    char tile[32];  /* the tile as run (an autotune row's differs by shape) */
    long launches;
    char status[160];
} Row;

typedef struct {
    Shape shapes[MAX_SHAPES];
    int nshapes;
    const char *modes, *archs, *cfg, *cfg_bf16, *tilec, *out, *compile_out;
    int device, reps, sample_rows, compile_runs, jit_runs, no_cublas, compile_only, use_cache, autotune;
    const char *source; /* --source: print the GEMM of that element type and exit */
    double batch_ms, target_ms, warm_ms, l2_mb;
    unsigned long long seed;
} Opts;

/* The inputs of one shape, on the host and the device. */
typedef struct {
    Shape s;
    float *hA, *hB;
    int ncopies, ncopies16;
    tilecDevicePtr dA[MAX_COPIES], dB[MAX_COPIES], dA16[MAX_COPIES], dB16[MAX_COPIES], dC;
    int nrows, *rows;
    double *ref; /* nrows x N */
    float *got;  /* one row of C */
    double base_ms[3];
} Problem;

static tilecRuntime rt;
static BenchCublas *cublas;
static tilecEvent events[MAX_BATCHES + 1];

static const char usage[] =
    "usage: bench_gemm [options]\n"
    "  --shapes=LIST       MxNxK or N (cube), comma-separated\n"
    "                      (default 1024,4096,8192,8191x8193x8190,4096x4096x64)\n"
    "  --modes=LIST        ieee,tf32-trunc,tf32-rna,tf32-rne,3xtf32,bf16 (default: all)\n"
    "  --archs=LIST        sm_90a,sm_80 (default: both)\n"
    "  --cfg=LIST          f32 tiles BMxBNxBKwWARPS[gG][sS] (default 128x128x32w8); gG: a 1-D\n"
    "                      grid in Triton's grouped order, G rows of tiles per group; sS:\n"
    "                      --stages=S (e.g. 128x256x32w8s2 for small K); p: -fpersistent,\n"
    "                      n: -fno-persistent\n"
    "  --cfg-bf16=LIST     bf16 tiles (default 128x256x64w8)\n"
    "  --copt=OPT          one more compile option for tilec's kernels (e.g. -fwgmma-hoist;\n"
    "                      repeatable, up to 4; the compile times take them too)\n"
    "  --no-cublas         skip cuBLAS\n"
    "  --b-kmajor          B stored N x K (row-major B^T, as x @ W^T's W): tilec's view\n"
    "                      strides [1, ldb], cuBLAS's B transposed (default: B row-major K x N)\n"
    "  --a-mmajor          A stored K x M (row-major A^T, as X^T @ dY's X): tilec's view\n"
    "                      strides [1, lda], cuBLAS's A transposed (default: A row-major M x K)\n"
    "  --b-bytes-swapped   diagnostic: B uploaded in the other layout than --b-kmajor\n"
    "                      says (square shapes; results wrong, BAD-ERROR: times only)\n"
    "  --reps=N            at least N timed batches (default 20)\n"
    "  --batch-ms=X        launches per batch so that a batch lasts >= X ms (default 1)\n"
    "  --target-ms=X       more batches (up to 500) until about X ms are timed (default 200)\n"
    "  --warmup-ms=X       warm-up per kernel and shape (default 100)\n"
    "  --l2-mb=X           L2 size for the input rotation (default: read from the device)\n"
    "  --sample-rows=N     rows checked against fp64 (default 64)\n"
    "  --seed=N            input stream seed (default 1; B uses seed+1)\n"
    "  --device=N          GPU ordinal (default 0)\n"
    "  --autotune          one more tilec row per mode and target: the tile\n"
    "                      tilecAutotune picks among --cfg for each shape (its\n"
    "                      progress on stderr; the choice kept in the kernel cache's\n"
    "                      directory only with --use-cache)\n"
    "  --use-cache         use tilec's kernel cache (default: off, so the kernels\n"
    "                      timed are the ones this build compiles)\n"
    "  --tilec=PATH        the tilec command, for whole-process compile times (those of\n"
    "                      the first --cfg tile's GEMM, tf32-rna or --modes' first f32\n"
    "                      mode, for each of --archs)\n"
    "  --compile-runs=N    runs per compile-time figure (default 10; JIT cold/warm: 5)\n"
    "  --compile-only      only the compile times (no GPU needed; the JIT rows where a\n"
    "                      driver answers, also tests/fake_cuda's libcuda.so.1)\n"
    "  --source=f32|bf16   print the .tir GEMM of the first --cfg (f32) or --cfg-bf16 tile\n"
    "                      and exit (bench/sass_matrix.sh compiles it)\n"
    "  --out=FILE          GEMM results as CSV\n"
    "  --compile-out=FILE  compile times as CSV\n";

/* ---- options ---------------------------------------------------------------- */

static int parse_shapes(const char *s, Opts *o)
{
    o->nshapes = 0;
    while (*s) {
        int a = 0, b = 0, c = 0, n = 0;
        if (o->nshapes == MAX_SHAPES)
            return -1;
        if (sscanf(s, "%dx%dx%d%n", &a, &b, &c, &n) == 3)
            ;
        else if (sscanf(s, "%d%n", &a, &n) == 1)
            b = c = a;
        else
            return -1;
        if (a <= 0 || b <= 0 || c <= 0)
            return -1;
        o->shapes[o->nshapes++] = (Shape){a, b, c};
        s += n;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return o->nshapes ? 0 : -1;
}

static int parse_tile(const char *s, Tile *t, int *used)
{
    if (sscanf(s, "%dx%dx%dw%d%n", &t->bm, &t->bn, &t->bk, &t->warps, used) != 4)
        return -1;
    int n = 0;
    t->group = t->stages = 0;
    if (sscanf(s + *used, "g%d%n", &t->group, &n) == 1) {
        if (t->group < 1)
            return -1;
        *used += n;
    }
    if (sscanf(s + *used, "s%d%n", &t->stages, &n) == 1) {
        if (t->stages < 2 || t->stages > 8) /* tilec's --stages range */
            return -1;
        *used += n;
    }
    t->persistent = s[*used] == 'p' ? 1 : s[*used] == 'n' ? -1 : 0;
    *used += t->persistent != 0;
    return t->bm > 0 && t->bn > 0 && t->bk > 0 && t->warps > 0 ? 0 : -1;
}

/* Whether every entry of a comma-separated tile list parses whole. */
static int tiles_ok(const char *list)
{
    for (const char *c = list;;) {
        Tile t;
        int used = 0;
        if (parse_tile(c, &t, &used) != 0 || (c[used] && c[used] != ','))
            return 0;
        if (!c[used])
            return 1;
        c += used + 1;
    }
}

/* Is word one of a comma-separated list? */
static int in_list(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, word, n))
            return 1;
        p += m + (p[m] == ',');
    }
    return 0;
}

static const char *opt_val(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(arg, name, n) && arg[n] == '=' ? arg + n + 1 : NULL;
}

static void parse_args(int argc, char **argv, Opts *o)
{
    *o = (Opts){.modes = "ieee,tf32-trunc,tf32-rna,tf32-rne,3xtf32,bf16", .archs = "sm_90a,sm_80",
                .cfg = "128x128x32w8", .cfg_bf16 = "128x256x64w8", .reps = 20, .sample_rows = 64,
                .compile_runs = 10, .jit_runs = 5, .batch_ms = 1, .target_ms = 200, .warm_ms = 100, .seed = 1};
    parse_shapes("1024,4096,8192,8191x8193x8190,4096x4096x64", o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            exit(0);
        } else if ((v = opt_val(a, "--shapes")))
            bad = parse_shapes(v, o);
        else if ((v = opt_val(a, "--modes")))
            o->modes = v;
        else if ((v = opt_val(a, "--archs")))
            o->archs = v;
        else if ((v = opt_val(a, "--cfg")))
            bad = !tiles_ok(o->cfg = v);
        else if ((v = opt_val(a, "--copt"))) {
            bad = nextra_copts == MAX_COPTS; /* at most MAX_COPTS */
            if (!bad)
                extra_copts[nextra_copts++] = v;
        }
        else if ((v = opt_val(a, "--cfg-bf16")))
            bad = !tiles_ok(o->cfg_bf16 = v);
        else if (!strcmp(a, "--no-cublas"))
            o->no_cublas = 1;
        else if (!strcmp(a, "--b-kmajor"))
            layout |= BENCH_B_KMAJOR;
        else if (!strcmp(a, "--a-mmajor"))
            layout |= BENCH_A_MMAJOR;
        else if (!strcmp(a, "--b-bytes-swapped"))
            b_bytes_swapped = 1;
        else if (!strcmp(a, "--use-cache"))
            o->use_cache = 1;
        else if (!strcmp(a, "--autotune"))
            o->autotune = 1;
        else if (!strcmp(a, "--compile-only"))
            o->compile_only = 1;
        else if ((v = opt_val(a, "--source")))
            bad = strcmp(o->source = v, "f32") && strcmp(v, "bf16");
        else if ((v = opt_val(a, "--reps")))
            bad = (o->reps = atoi(v)) < 1 || o->reps > MAX_BATCHES;
        else if ((v = opt_val(a, "--batch-ms")))
            bad = (o->batch_ms = atof(v)) <= 0;
        else if ((v = opt_val(a, "--target-ms")))
            bad = (o->target_ms = atof(v)) < 0;
        else if ((v = opt_val(a, "--warmup-ms")))
            bad = (o->warm_ms = atof(v)) < 0;
        else if ((v = opt_val(a, "--l2-mb")))
            bad = (o->l2_mb = atof(v)) <= 0;
        else if ((v = opt_val(a, "--sample-rows")))
            bad = (o->sample_rows = atoi(v)) < 1;
        else if ((v = opt_val(a, "--seed")))
            o->seed = strtoull(v, NULL, 0);
        else if ((v = opt_val(a, "--device")))
            bad = (o->device = atoi(v)) < 0;
        else if ((v = opt_val(a, "--tilec")))
            o->tilec = v;
        else if ((v = opt_val(a, "--compile-runs")))
            bad = (o->compile_runs = atoi(v)) < 1;
        else if ((v = opt_val(a, "--out")))
            o->out = v;
        else if ((v = opt_val(a, "--compile-out")))
            o->compile_out = v;
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "bench_gemm: bad option '%s'\n%s", a, usage);
            exit(2);
        }
    }
    if (o->compile_runs < o->jit_runs)
        o->jit_runs = o->compile_runs;
}

/* ---- inputs and the fp64 reference -------------------------------------------- */

/* Element i of the stream `seed`: splitmix64, top 24 bits, minus 0.5; exact
 * in f32, so numpy reproduces it bit for bit. */
static float input_value(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * 0x1p-24f - 0.5f;
}

static uint16_t to_bf16(float f) /* round to nearest even, like torch */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
}

typedef struct {
    const Problem *p;
    int j0, j1;
} RefJob;

/* ref[r][j] for j in [j0, j1): B's row slice converted once per k, then one
 * pass per sampled row, so B is read from memory once in all. */
static void *ref_worker(void *arg)
{
    const RefJob *job = arg;
    const Problem *p = job->p;
    int N = p->s.N, K = p->s.K, w = job->j1 - job->j0;
    double *brow = malloc((size_t)(w > 0 ? w : 1) * sizeof *brow);
    if (!brow)
        return (void *)1;
    for (int k = 0; k < K; k++) {
        const float *b = p->hB + (size_t)k * N + job->j0;
        for (int j = 0; j < w; j++)
            brow[j] = b[j];
        for (int r = 0; r < p->nrows; r++) {
            double a = p->hA[(size_t)p->rows[r] * K + k], *dst = p->ref + (size_t)r * N + job->j0;
            for (int j = 0; j < w; j++)
                dst[j] += a * brow[j];
        }
    }
    free(brow);
    return NULL;
}

static int compute_reference(Problem *p)
{
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    int n = nt < 1 ? 1 : nt > 64 ? 64 : (int)nt;
    if (n > p->s.N)
        n = p->s.N;
    pthread_t th[64];
    RefJob jobs[64];
    int started = 0, rc = 0;
    for (int t = 0; t < n; t++) {
        jobs[t] = (RefJob){p, (int)((long long)p->s.N * t / n), (int)((long long)p->s.N * (t + 1) / n)};
        if (pthread_create(&th[t], NULL, ref_worker, &jobs[t]) != 0) {
            rc = -1;
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++) {
        void *ret = NULL;
        pthread_join(th[t], &ret);
        rc |= ret ? -1 : 0;
    }
    return rc;
}

static const char *rt_log(void)
{
    const char *log = "";
    if (rt)
        tilecRuntimeGetLog(rt, &log);
    return log;
}

static void problem_free(Problem *p)
{
    for (int c = 0; c < MAX_COPIES; c++) {
        tilecFree(rt, p->dA[c]);
        tilecFree(rt, p->dB[c]);
        tilecFree(rt, p->dA16[c]);
        tilecFree(rt, p->dB16[c]);
    }
    tilecFree(rt, p->dC);
    free(p->hA);
    free(p->hB);
    free(p->rows);
    free(p->ref);
    free(p->got);
    memset(p, 0, sizeof *p);
}

/* Copies of a buffer so that `copies` of it exceed the rotation target. */
/* Where element i of x's transpose (cols x rows, row-major) lies in x
 * (rows x cols, row-major). */
static size_t transposed(size_t i, size_t rows, size_t cols) { return i % rows * cols + i / rows; }

static int copies_for(size_t bytes, size_t target)
{
    size_t c = bytes ? (target + bytes - 1) / bytes : 1;
    return c < 1 ? 1 : c > MAX_COPIES ? MAX_COPIES : (int)c;
}

static int upload_copies(tilecDevicePtr *d, int n, const void *host, size_t bytes)
{
    for (int c = 0; c < n; c++)
        if (tilecMalloc(rt, &d[c], bytes) != TILEC_SUCCESS || tilecMemcpyHtoD(rt, d[c], host, bytes) != TILEC_SUCCESS)
            return -1;
    return 0;
}

static int problem_init(Problem *p, Shape s, const Opts *o, size_t l2, int want_bf16)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    size_t na = (size_t)s.M * s.K, nb = (size_t)s.K * s.N, nc = (size_t)s.M * s.N;
    p->nrows = o->sample_rows < s.M ? o->sample_rows : s.M;
    p->hA = malloc(na * 4);
    p->hB = malloc(nb * 4);
    p->rows = malloc((size_t)p->nrows * sizeof *p->rows);
    p->ref = calloc((size_t)p->nrows * s.N, sizeof *p->ref);
    p->got = malloc((size_t)s.N * 4);
    if (!p->hA || !p->hB || !p->rows || !p->ref || !p->got)
        return -1;
    for (size_t i = 0; i < na; i++)
        p->hA[i] = input_value(o->seed, i);
    for (size_t i = 0; i < nb; i++)
        p->hB[i] = input_value(o->seed + 1, i);
    for (int r = 0; r < p->nrows; r++) /* evenly spread, first and last included */
        p->rows[r] = p->nrows == 1 ? 0 : (int)((long long)r * (s.M - 1) / (p->nrows - 1));
    double t0 = bench_now_ms();
    if (compute_reference(p) != 0)
        return -1;
    fprintf(stderr, "  fp64 reference for %d rows: %.0f ms\n", p->nrows, bench_now_ms() - t0);
    size_t target = 4 * l2;
    p->ncopies = copies_for((na + nb) * 4, target);
    /* A and B as the device holds them: transposed where stored M-major / K-major */
    int at = (layout & BENCH_A_MMAJOR) != 0, bt = ((layout & BENCH_B_KMAJOR) != 0) ^ b_bytes_swapped;
    float *t = at || bt ? malloc((na > nb ? na : nb) * 4) : NULL;
    if ((at || bt) && !t)
        return -1;
    for (size_t i = 0; at && i < na; i++)
        t[i] = p->hA[transposed(i, (size_t)s.M, (size_t)s.K)];
    int up = upload_copies(p->dA, p->ncopies, at ? t : p->hA, na * 4);
    for (size_t i = 0; bt && i < nb; i++)
        t[i] = p->hB[transposed(i, (size_t)s.K, (size_t)s.N)];
    up = up || upload_copies(p->dB, p->ncopies, bt ? t : p->hB, nb * 4);
    free(t);
    if (up)
        return -1;
    if (want_bf16) {
        uint16_t *h = malloc((na > nb ? na : nb) * 2);
        if (!h)
            return -1;
        p->ncopies16 = copies_for((na + nb) * 2, target);
        for (size_t i = 0; i < na; i++)
            h[i] = to_bf16(p->hA[at ? transposed(i, (size_t)s.M, (size_t)s.K) : i]);
        int rc = upload_copies(p->dA16, p->ncopies16, h, na * 2);
        for (size_t i = 0; rc == 0 && i < nb; i++)
            h[i] = to_bf16(p->hB[bt ? transposed(i, (size_t)s.K, (size_t)s.N) : i]);
        rc = rc ? rc : upload_copies(p->dB16, p->ncopies16, h, nb * 2);
        free(h);
        if (rc)
            return -1;
    }
    if (tilecMalloc(rt, &p->dC, nc * 4) != TILEC_SUCCESS)
        return -1;
    fprintf(stderr, "  inputs: %d f32 copies (%.0f MB)%s", p->ncopies, p->ncopies * (na + nb) * 4 / 1e6,
            want_bf16 ? "" : "\n");
    if (want_bf16)
        fprintf(stderr, ", %d bf16 copies (%.0f MB)\n", p->ncopies16, p->ncopies16 * (na + nb) * 2 / 1e6);
    return 0;
}

/* ---- running one kernel --------------------------------------------------------- */

/* The arguments of the generated gemm kernel for copy c of p's inputs
 * (args points into the struct: keep it in place). */
typedef struct {
    tilecDevicePtr a, b;
    int32_t M, N, K, lda, ldb, ldc;
    void *args[9];
} GemmArgs;

static void gemm_args(GemmArgs *g, const Variant *v, Problem *p, int c)
{
    *g = (GemmArgs){.a = v->bf16 ? p->dA16[c] : p->dA[c], .b = v->bf16 ? p->dB16[c] : p->dB[c], .M = p->s.M,
                    .N = p->s.N, .K = p->s.K, .lda = layout & BENCH_A_MMAJOR ? p->s.M : p->s.K,
                    .ldb = layout & BENCH_B_KMAJOR ? p->s.K : p->s.N, .ldc = p->s.N};
    void *args[9] = {&g->a, &g->b, &p->dC, &g->M, &g->N, &g->K, &g->lda, &g->ldb, &g->ldc};
    memcpy(g->args, args, sizeof args);
}

/* One program per BM x BN tile of C. */
static void gemm_grid(const Tile *t, const Shape *s, unsigned grid[3])
{
    grid[0] = (unsigned)((s->M + t->bm - 1) / t->bm);
    grid[1] = (unsigned)((s->N + t->bn - 1) / t->bn);
    grid[2] = 1;
    if (t->group > 0) { /* one dimension: the kernel orders the tiles */
        grid[0] *= grid[1];
        grid[1] = 1;
    }
}

static int launch(const Variant *v, Problem *p, long iter, char *why, size_t wn)
{
    const Shape *s = &p->s;
    int c = (int)(iter % (v->bf16 ? p->ncopies16 : p->ncopies)); /* the input rotation */
    GemmArgs g;
    gemm_args(&g, v, p, c);
    if (v->is_cublas)
        return bench_cublas_gemm(cublas, v->cmode, s->M, s->N, s->K, g.a, g.b, p->dC, layout, why, wn);
    unsigned grid[3];
    gemm_grid(&v->tile, s, grid);
    tilecResult r = tilecLaunch(v->mod, "gemm", grid, NULL, g.args);
    if (r != TILEC_SUCCESS)
        snprintf(why, wn, "tilecLaunch: %s: %s", tilecGetErrorString(r), rt_log());
    return r != TILEC_SUCCESS;
}

static int sync_check(char *why, size_t wn)
{
    tilecResult r = tilecSynchronize(rt);
    if (r != TILEC_SUCCESS)
        snprintf(why, wn, "tilecSynchronize: %s: %s", tilecGetErrorString(r), rt_log());
    return r != TILEC_SUCCESS;
}

/* One launch on poisoned C, then the sampled rows against fp64. */
static int check_accuracy(const Variant *v, Problem *p, double *err, char *why, size_t wn)
{
    size_t cbytes = (size_t)p->s.M * p->s.N * 4;
    if (tilecMemsetD8(rt, p->dC, 0xFF, cbytes) != TILEC_SUCCESS || launch(v, p, 0, why, wn) || sync_check(why, wn))
        return -1;
    double num = 0, den = 0;
    for (int r = 0; r < p->nrows; r++) {
        size_t off = (size_t)p->rows[r] * p->s.N * 4;
        if (tilecMemcpyDtoH(rt, p->got, p->dC + off, (size_t)p->s.N * 4) != TILEC_SUCCESS) {
            snprintf(why, wn, "tilecMemcpyDtoH: %s", rt_log());
            return -1;
        }
        const double *ref = p->ref + (size_t)r * p->s.N;
        for (int j = 0; j < p->s.N; j++) {
            double d = p->got[j] - ref[j]; /* NaN (unwritten: poison) propagates */
            num += d * d;
            den += ref[j] * ref[j];
        }
    }
    *err = den > 0 ? sqrt(num / den) : sqrt(num);
    return 0;
}

static int clampi(double x, int lo, int hi)
{
    return x < lo ? lo : x > hi ? hi : (int)x;
}

static int elapsed(int a, int b, double *ms, char *why, size_t wn)
{
    float f = 0;
    tilecResult r = tilecEventElapsed(events[a], events[b], &f);
    if (r != TILEC_SUCCESS)
        snprintf(why, wn, "tilecEventElapsed: %s: %s", tilecGetErrorString(r), rt_log());
    *ms = f;
    return r != TILEC_SUCCESS;
}

static int record(int i, char *why, size_t wn)
{
    tilecResult r = tilecEventRecord(events[i], NULL);
    if (r != TILEC_SUCCESS)
        snprintf(why, wn, "tilecEventRecord: %s: %s", tilecGetErrorString(r), rt_log());
    return r != TILEC_SUCCESS;
}

static int time_kernel(const Variant *v, Problem *p, const Opts *o, Row *row, char *why, size_t wn)
{
    long it = 0;
    double probe;
    /* first launches pay for lazy set-up (cuBLAS heuristics, module load) */
    for (int i = 0; i < 2; i++)
        if (launch(v, p, it++, why, wn))
            return -1;
    if (sync_check(why, wn) || record(0, why, wn))
        return -1;
    for (int i = 0; i < 3; i++)
        if (launch(v, p, it++, why, wn))
            return -1;
    if (record(1, why, wn) || elapsed(0, 1, &probe, why, wn))
        return -1;
    double est = probe / 3 > 1e-4 ? probe / 3 : 1e-4;
    int nwarm = clampi(ceil(o->warm_ms / est), 1, 20000);
    int inner = clampi(ceil(o->batch_ms / est), 1, 100000);
    int batches = clampi(ceil(o->target_ms / (inner * est)), o->reps, MAX_BATCHES);
    /* the warm-up stays queued ahead of the first event, so the GPU is busy
     * when timing starts and every batch runs back to back. Its first
     * launches, issued into an empty queue, give the host's cost of one
     * launch (later ones may wait for room in a full queue instead). */
    int nhost = nwarm < 32 ? nwarm : 32;
    double host0 = bench_now_ms();
    for (int i = 0; i < nwarm; i++) {
        if (launch(v, p, it++, why, wn))
            return -1;
        if (i + 1 == nhost)
            row->host_us = (bench_now_ms() - host0) * 1e3 / nhost;
    }
    if (record(0, why, wn))
        return -1;
    for (int b = 0; b < batches; b++) {
        for (int i = 0; i < inner; i++)
            if (launch(v, p, it++, why, wn))
                return -1;
        if (record(b + 1, why, wn))
            return -1;
    }
    double t[MAX_BATCHES];
    for (int b = 0; b < batches; b++) {
        if (elapsed(b, b + 1, &t[b], why, wn))
            return -1;
        t[b] /= inner;
    }
    row->ms_med = bench_median(t, batches);
    row->ms_min = t[0];
    row->ms_max = t[batches - 1];
    row->launches = (long)batches * inner;
    return sync_check(why, wn);
}

/* Errors a correct kernel of each kind stays far below on these inputs. */
static double error_bound(const Variant *v)
{
    return v->fam == FAM_BF16 ? 2e-2 : v->fam == FAM_TF32 ? 5e-3 : 1e-5;
}

/* A status fits one table cell and one CSV field. */
static void one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == ',' || *s == '\r')
            *s = ' ';
}

static void run_row(const Variant *v, Problem *p, const Opts *o, Row *row)
{
    memset(row, 0, sizeof *row);
    row->v = v;
    row->s = p->s;
    row->ratio = row->err = NAN;
    char why[1024] = "";
    if (v->error[0]) {
        snprintf(row->status, sizeof row->status, "not built: %.140s", v->error);
        one_line(row->status);
        return;
    }
    if (check_accuracy(v, p, &row->err, why, sizeof why) != 0 || time_kernel(v, p, o, row, why, sizeof why) != 0) {
        fprintf(stderr, "  FAILED: %s\n", why);
        snprintf(row->status, sizeof row->status, "FAILED: %.140s", why);
        one_line(row->status);
        return;
    }
    row->tflops = 2.0 * p->s.M * p->s.N * (double)p->s.K / (row->ms_med * 1e-3) / 1e12;
    if (v->is_cublas)
        p->base_ms[v->fam] = row->ms_med;
    if (p->base_ms[v->fam] > 0)
        row->ratio = p->base_ms[v->fam] / row->ms_med;
    snprintf(row->status, sizeof row->status, "%s", row->err <= error_bound(v) ? "ok" : "BAD-ERROR");
    /* when issuing a launch takes the host about as long as the GPU takes
     * to run it, the queue runs dry and the time is the host's, not the
     * kernel's: say so rather than report it as kernel speed */
    if (row->host_us * 1e-3 > 0.8 * row->ms_med)
        snprintf(row->status + strlen(row->status), sizeof row->status - strlen(row->status), " launch-bound");
}

/* ---- variants ---------------------------------------------------------------- */

static void tile_str(const Variant *v, char *buf, size_t n)
{
    if (v->is_cublas)
        snprintf(buf, n, "-");
    else if (v->autotune && !v->mod)
        snprintf(buf, n, "auto");
    else {
        int k = snprintf(buf, n, "%s%dx%dx%dw%d", v->autotune ? "auto:" : "", v->tile.bm, v->tile.bn, v->tile.bk,
                         v->tile.warps);
        if (v->tile.group > 0 && k > 0 && (size_t)k < n)
            k += snprintf(buf + k, n - (size_t)k, "g%d", v->tile.group);
        if (v->tile.stages > 0 && k > 0 && (size_t)k < n)
            k += snprintf(buf + k, n - (size_t)k, "s%d", v->tile.stages);
        if (v->tile.persistent && k > 0 && (size_t)k < n)
            snprintf(buf + k, n - (size_t)k, v->tile.persistent > 0 ? "p" : "n");
    }
}

/* Tile tl's own compile options (--stages, persistence) and the --copt
 * ones, appended to opts from index n (s_opt is --stages' buffer); returns
 * the new count. */
static int tile_opts(const Tile *tl, const char **opts, int n, char s_opt[24])
{
    if (tl->stages > 0) {
        snprintf(s_opt, 24, "--stages=%d", tl->stages);
        opts[n++] = s_opt;
    }
    if (tl->persistent)
        opts[n++] = tl->persistent > 0 ? "-fpersistent" : "-fno-persistent";
    for (int i = 0; i < nextra_copts; i++)
        opts[n++] = extra_copts[i];
    return n;
}

/* The compile options of v's kernels of tile tl (opts holds 4 + MAX_COPTS;
 * a_opt, p_opt and s_opt are their buffers); returns their count. */
static int variant_opts(const Variant *v, const Tile *tl, const char **opts, char a_opt[32], char p_opt[48],
                        char s_opt[24])
{
    snprintf(a_opt, 32, "--arch=%s", v->arch);
    snprintf(p_opt, 48, "--precision=%s", v->bf16 ? "ieee" : v->mode);
    opts[0] = a_opt;
    opts[1] = p_opt;
    return tile_opts(tl, opts, 2, s_opt);
}

static void build_tilec(Variant *v)
{
    char src[4096], a_opt[32], p_opt[48], s_opt[24];
    const char *opts[4 + MAX_COPTS];
    int nopts = variant_opts(v, &v->tile, opts, a_opt, p_opt, s_opt);
    bench_gemm_source(src, sizeof src, v->bf16 ? "bf16" : "f32", v->tile.bm, v->tile.bn, v->tile.bk, v->tile.warps,
                      v->tile.group, layout);
    tilecResult r = tilecModuleLoadSource(rt, src, strlen(src), "gemm.tir", nopts, opts, &v->mod);
    if (r != TILEC_SUCCESS)
        snprintf(v->error, sizeof v->error, "%s: %s", tilecGetErrorString(r), rt_log());
}

/* An autotune row, for shape p: tilecAutotune picks among v->tiles on
 * p's inputs and v takes the chosen tile and module. */
static void tune_tilec(Variant *v, Problem *p)
{
    static char src[8][4096];
    char a_opt[32], p_opt[48], s_opt[8][24], key[96];
    const char *opts[8][4 + MAX_COPTS];
    tilecTuneConfig cfg[8];
    const Shape *s = &p->s;
    for (int t = 0; t < v->ntiles; t++) {
        const Tile *tl = &v->tiles[t];
        int nopts = variant_opts(v, tl, opts[t], a_opt, p_opt, s_opt[t]);
        bench_gemm_source(src[t], sizeof src[t], v->bf16 ? "bf16" : "f32", tl->bm, tl->bn, tl->bk, tl->warps, tl->group,
                            layout);
        cfg[t] = (tilecTuneConfig){src[t], strlen(src[t]), "gemm.tir", nopts, opts[t], {0, 0, 0}};
        gemm_grid(tl, s, cfg[t].grid);
    }
    snprintf(key, sizeof key, "bench gemm %s %s %dx%dx%d", v->mode, v->arch, s->M, s->N, s->K);
    GemmArgs g;
    gemm_args(&g, v, p, 0);
    tilecModuleUnload(&v->mod);
    v->error[0] = 0;
    unsigned best = 0;
    tilecResult r = tilecAutotune(rt, key, cfg, (unsigned)v->ntiles, "gemm", g.args, &best, &v->mod);
    if (r != TILEC_SUCCESS)
        snprintf(v->error, sizeof v->error, "tilecAutotune: %s: %s", tilecGetErrorString(r), rt_log());
    else
        v->tile = v->tiles[best];
}

static int add_tilec_variants(Variant *vs, int n, const Opts *o, const char *mode, const char *cfgs)
{
    static const char *const archs[] = {"sm_90a", "sm_80"};
    for (size_t a = 0; a < 2; a++) {
        if (!in_list(o->archs, archs[a]))
            continue;
        int first = n; /* this target's variants start here */
        for (const char *c = cfgs; *c && n < MAX_VARIANTS;) {
            Variant *v = &vs[n];
            int used = 0;
            memset(v, 0, sizeof *v);
            if (parse_tile(c, &v->tile, &used) != 0) {
                fprintf(stderr, "bench_gemm: bad tile '%s' (want BMxBNxBKwWARPS[gG][sS], S 2..8)\n", c);
                exit(2);
            }
            c += used + (c[used] == ',');
            snprintf(v->mode, sizeof v->mode, "%s", mode);
            snprintf(v->arch, sizeof v->arch, "%s", archs[a]);
            v->bf16 = !strcmp(mode, "bf16");
            v->fam = v->bf16 ? FAM_BF16 : strncmp(mode, "tf32", 4) == 0 ? FAM_TF32 : FAM_FP32;
            char tile[48];
            tile_str(v, tile, sizeof tile);
            fprintf(stderr, "building tilec %s %s %s\n", mode, v->arch, tile);
            build_tilec(v);
            if (v->error[0])
                fprintf(stderr, "  not built: %s\n", v->error);
            n++;
        }
        if (o->autotune && n < MAX_VARIANTS && n - first >= 2) { /* the row tilecAutotune picks for */
            Variant *v = &vs[n];
            *v = vs[first];
            v->mod = NULL;
            v->error[0] = 0;
            v->autotune = 1;
            for (int i = first; i < n && v->ntiles < 8; i++)
                v->tiles[v->ntiles++] = vs[i].tile;
            n++;
        }
    }
    return n;
}

static int make_variants(Variant *vs, const Opts *o)
{
    int n = 0;
    static const struct {
        const char *mode;
        BenchCublasMode cm;
        Family fam;
    } cb[] = {{"sgemm", BC_SGEMM, FAM_FP32}, {"tf32", BC_TF32, FAM_TF32}, {"bf16", BC_BF16, FAM_BF16}};
    /* cuBLAS first: each shape's tilec rows are compared with them */
    for (size_t i = 0; cublas && i < 3; i++) {
        Variant *v = &vs[n++];
        memset(v, 0, sizeof *v);
        v->is_cublas = 1;
        snprintf(v->mode, sizeof v->mode, "%s", cb[i].mode);
        snprintf(v->arch, sizeof v->arch, "-");
        v->cmode = cb[i].cm;
        v->fam = cb[i].fam;
        v->bf16 = cb[i].cm == BC_BF16;
    }
    static const char *const modes[] = {"ieee", "tf32-trunc", "tf32-rna", "tf32-rne", "3xtf32", "bf16"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        if (in_list(o->modes, modes[m]))
            n = add_tilec_variants(vs, n, o, modes[m], m == 5 ? o->cfg_bf16 : o->cfg);
    return n;
}

/* ---- output --------------------------------------------------------------------- */

static void print_rows(FILE *f, const Row *rows, int n, int csv)
{
    if (csv)
        fprintf(f, "impl,mode,arch,tile,M,N,K,ms_median,ms_min,ms_max,launches,tflops,baseline,ratio,rel_err,"
                   "host_us_per_launch,status\n");
    else
        fprintf(f, "%-16s %-6s %-10s %-6s %-13s %9s %8s %9s %9s  %s\n", "shape", "impl", "mode", "arch", "tile",
                "ms", "TFLOP/s", "vs cuBLAS", "rel.err", "status");
    for (int i = 0; i < n; i++) {
        const Row *r = &rows[i];
        char tile[32], shape[48];
        snprintf(tile, sizeof tile, "%s", r->tile);
        snprintf(shape, sizeof shape, "%dx%dx%d", r->s.M, r->s.N, r->s.K);
        const char *impl = r->v->is_cublas ? "cublas" : "tilec";
        if (csv)
            fprintf(f, "%s,%s,%s,%s,%d,%d,%d,%.6f,%.6f,%.6f,%ld,%.3f,%s,%.4f,%.4g,%.2f,%s\n", impl, r->v->mode,
                    r->v->arch, tile, r->s.M, r->s.N, r->s.K, r->ms_med, r->ms_min, r->ms_max, r->launches, r->tflops,
                    family_base[r->v->fam], r->ratio, r->err, r->host_us, r->status);
        else {
            char ratio[16] = "-", err[16] = "-";
            if (!isnan(r->ratio))
                snprintf(ratio, sizeof ratio, "%.3f", r->ratio);
            if (!isnan(r->err))
                snprintf(err, sizeof err, "%.2e", r->err);
            fprintf(f, "%-16s %-6s %-10s %-6s %-13s %9.4f %8.1f %9s %9s  %s\n", shape, impl, r->v->mode, r->v->arch,
                    tile, r->ms_med, r->tflops, ratio, err, r->status);
        }
    }
}

static void print_compile(FILE *f, const CompileTime *c, int n, int csv)
{
    if (csv)
        fprintf(f, "what,ms_median,ms_min,ms_first,runs,note\n");
    else if (n)
        fprintf(f, "\n%-44s %10s %10s %10s %5s\n", "compile time (GEMM kernel)", "median ms", "min ms", "first ms",
                "runs");
    for (int i = 0; i < n; i++) {
        if (csv)
            fprintf(f, "%s,%.3f,%.3f,%.3f,%d,\"%s\"\n", c[i].what, c[i].ms_median, c[i].ms_min, c[i].ms_first, c[i].runs,
                    c[i].note);
        else
            fprintf(f, "%-44s %10.2f %10.2f %10.2f %5d\n", c[i].what, c[i].ms_median, c[i].ms_min, c[i].ms_first,
                    c[i].runs);
    }
}

static int write_file(const char *path, const char *header, const Row *rows, int nrows, const CompileTime *ct,
                      int nct)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    fputs(header, f);
    if (rows)
        print_rows(f, rows, nrows, 1);
    else
        print_compile(f, ct, nct, 1);
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------------- */

/* The compile times of the first --cfg tile's f32 GEMM, with its
 * --stages and persistence and the --copt options, for the --archs given:
 * tf32-rna where --modes has it (the default), else its first f32 mode. */
static void compile_times(const Opts *o, int gpu, CompileTime *ct, int *nct)
{
    static const char *const f32_modes[] = {"tf32-rna", "tf32-rne", "tf32-trunc", "3xtf32", "ieee"};
    const char *mode = in_list(o->modes, "tf32-rna") ? "tf32-rna" : NULL;
    for (const char *p = o->modes; p && *p && !mode;) { /* else the list's first f32 mode */
        size_t n = strcspn(p, ",");
        for (size_t m = 0; m < sizeof f32_modes / sizeof f32_modes[0]; m++)
            if (strlen(f32_modes[m]) == n && !strncmp(p, f32_modes[m], n))
                mode = f32_modes[m];
        p += n + (p[n] == ',');
    }
    if (!mode) {
        fprintf(stderr, "compile time: no f32 mode in --modes: no compile rows\n");
        return;
    }
    char src[4096], why[2048], s_opt[24];
    Tile t;
    int used;
    parse_tile(o->cfg, &t, &used);
    bench_gemm_source(src, sizeof src, "f32", t.bm, t.bn, t.bk, t.warps, t.group, layout);
    const char *extra[2 + MAX_COPTS];
    int nextra = tile_opts(&t, extra, 0, s_opt);
    static const char *const archs[] = {"sm_90a", "sm_80"};
    for (int a = 0; a < 2; a++) {
        if (!in_list(o->archs, archs[a]))
            continue;
        BenchCompile c = {.src = src, .arch = archs[a], .precision = mode, .extra = extra, .nextra = nextra};
        if (gpu) {
            fprintf(stderr, "compile time: JIT cold/warm %s\n", archs[a]);
            c.runs = o->jit_runs;
            if (bench_compile_jit(o->device, &c, ct, nct, MAX_COMPILE_ROWS, why, sizeof why))
                fprintf(stderr, "  failed: %s\n", why);
        }
        fprintf(stderr, "compile time: in-process %s\n", archs[a]);
        c.runs = o->compile_runs;
        if (bench_compile_inprocess(&c, ct, nct, MAX_COMPILE_ROWS, why, sizeof why))
            fprintf(stderr, "  failed: %s\n", why);
        if (o->tilec) {
            fprintf(stderr, "compile time: whole process %s\n", archs[a]);
            if (bench_compile_process(o->tilec, &c, ct, nct, MAX_COMPILE_ROWS, why, sizeof why))
                fprintf(stderr, "  failed: %s\n", why);
        }
    }
}

int main(int argc, char **argv)
{
    Opts o;
    parse_args(argc, argv, &o);
    /* the driver's own JIT cache would make "cold" loads warm */
    setenv("CUDA_CACHE_DISABLE", "1", 0);
    if (o.source) {
        char src[4096];
        Tile t;
        int used, bf16 = !strcmp(o.source, "bf16");
        parse_tile(bf16 ? o.cfg_bf16 : o.cfg, &t, &used);
        bench_gemm_source(src, sizeof src, o.source, t.bm, t.bn, t.bk, t.warps, t.group, layout);
        fputs(src, stdout);
        return 0;
    }
    static CompileTime ct[MAX_COMPILE_ROWS];
    int nct = 0;
    char header[1024];
    if (o.compile_only) {
        /* the JIT rows where a driver answers: a GPU's, or tests/fake_cuda's (compile + ptxas + a
         * load that only copies: the host's part of a cold JIT, without a GPU) */
        tilecRuntime probe = NULL;
        int jit = tilecRuntimeCreate(&probe, o.device) == TILEC_SUCCESS;
        const char *dev = "";
        if (jit)
            tilecRuntimeDeviceName(probe, &dev);
        char devname[256];
        snprintf(devname, sizeof devname, "%s", jit ? dev : "no driver: no JIT rows");
        tilecRuntimeDestroy(&probe);
        compile_times(&o, jit, ct, &nct);
        snprintf(header, sizeof header, "# %s; compile times only; %s\n", tilecVersion(), devname);
        fputs(header, stdout);
        print_compile(stdout, ct, nct, 0);
        return o.compile_out && write_file(o.compile_out, header, NULL, 0, ct, nct) ? 1 : 0;
    }

    /* the kernels timed must be the ones this build compiles, not cache
     * entries left by another build of the same version */
    const char *rt_opts[2];
    int nrt = 0;
    if (!o.use_cache)
        rt_opts[nrt++] = "--no-cache";
    if (o.autotune && !getenv("TILEC_TUNE_VERBOSE")) /* the autotuner's progress on the terminal, unless told */
        rt_opts[nrt++] = "--tune-verbose";
    tilecResult r = tilecRuntimeCreateWithOptions(&rt, o.device, nrt, rt_opts);
    if (r == TILEC_ERROR_NO_DRIVER || r == TILEC_ERROR_NO_DEVICE) {
        int n = (int)strcspn(rt_log(), "\n");
        fprintf(stderr, "bench_gemm: SKIP: no GPU: %.*s (%s)\n", n, rt_log(), tilecGetErrorString(r));
        tilecRuntimeDestroy(&rt);
        return 77;
    }
    if (r != TILEC_SUCCESS) {
        fprintf(stderr, "bench_gemm: tilecRuntimeCreate(%d): %s\n%s", o.device, tilecGetErrorString(r), rt_log());
        tilecRuntimeDestroy(&rt);
        return 1;
    }
    const char *devname = "?";
    tilecRuntimeDeviceName(rt, &devname);
    char why[1024];
    size_t l2 = 0;
    int cuda_ok = bench_cuda_setup(o.device, &l2, why, sizeof why) == 0;
    if (!cuda_ok)
        fprintf(stderr, "bench_gemm: libcuda set-up failed (%s); no cuBLAS\n", why);
    if (o.l2_mb > 0)
        l2 = (size_t)(o.l2_mb * 1e6);
    if (!l2)
        l2 = 50000000; /* the H100/H200 datasheet figure */
    if (cuda_ok && !o.no_cublas && bench_cublas_open(&cublas, why, sizeof why) != 0)
        fprintf(stderr, "bench_gemm: no cuBLAS: %s\n", why);
    snprintf(header, sizeof header, "# %s; %s; %s; L2 %.0f MB; rotation >= 4x L2; median of >= %d batches >= %g ms%s%s%s\n",
             tilecVersion(), devname, cublas ? bench_cublas_name(cublas) : "no cuBLAS", l2 / 1e6, o.reps, o.batch_ms,
             layout & BENCH_A_MMAJOR ? "; A M-major (stored K x M)" : "",
             layout & BENCH_B_KMAJOR ? "; B K-major (stored N x K)" : "",
             b_bytes_swapped ? "; B's bytes in the other layout (diagnostic: results wrong)" : "");
    fprintf(stderr, "%s", header);

    compile_times(&o, 1, ct, &nct);

    for (int i = 0; i <= MAX_BATCHES; i++)
        if (tilecEventCreate(rt, &events[i]) != TILEC_SUCCESS) {
            fprintf(stderr, "bench_gemm: tilecEventCreate: %s\n", rt_log());
            return 1;
        }
    static Variant vs[MAX_VARIANTS];
    int nv = make_variants(vs, &o), want_bf16 = 0;
    for (int i = 0; i < nv; i++)
        want_bf16 |= vs[i].bf16;
    Row *rows = calloc((size_t)o.nshapes * nv + 1, sizeof *rows);
    int nrows = 0;
    if (!rows)
        return 1;
    for (int si = 0; si < o.nshapes; si++) {
        Shape s = o.shapes[si];
        fprintf(stderr, "[%d/%d] %dx%dx%d\n", si + 1, o.nshapes, s.M, s.N, s.K);
        static Problem p;
        if (problem_init(&p, s, &o, l2, want_bf16) != 0) {
            fprintf(stderr, "  cannot set up the inputs (memory?): %s\n", rt_log());
            problem_free(&p);
            continue;
        }
        for (int i = 0; i < nv; i++) {
            Row *row = &rows[nrows++];
            char tile[32];
            if (vs[i].autotune)
                tune_tilec(&vs[i], &p);
            tile_str(&vs[i], tile, sizeof tile);
            fprintf(stderr, "  %-6s %-10s %-6s %-13s", vs[i].is_cublas ? "cublas" : "tilec", vs[i].mode, vs[i].arch,
                    tile);
            run_row(&vs[i], &p, &o, row);
            snprintf(row->tile, sizeof row->tile, "%s", tile);
            fprintf(stderr, " %9.4f ms %8.1f TFLOP/s  x%.3f  err %.2e  %s\n", row->ms_med, row->tflops, row->ratio,
                    row->err, row->status);
        }
        problem_free(&p);
    }

    fputs(header, stdout);
    print_rows(stdout, rows, nrows, 0);
    print_compile(stdout, ct, nct, 0);
    int bad = 0;
    for (int i = 0; i < nrows; i++)
        bad += strncmp(rows[i].status, "ok", 2) != 0; /* "ok launch-bound" passed */
    if (bad)
        printf("\nWARNING: %d row(s) did not pass (see status)\n", bad);
    int rc = 0;
    if (o.out && write_file(o.out, header, rows, nrows, NULL, 0))
        rc = 1;
    if (o.compile_out && write_file(o.compile_out, header, NULL, 0, ct, nct))
        rc = 1;

    free(rows);
    for (int i = 0; i < nv; i++)
        if (vs[i].mod)
            tilecModuleUnload(&vs[i].mod);
    for (int i = 0; i <= MAX_BATCHES; i++)
        tilecEventDestroy(&events[i]);
    bench_cublas_close(cublas);
    tilecRuntimeDestroy(&rt);
    bench_cuda_teardown();
    return rc;
}
