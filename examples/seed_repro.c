/*
 * seed_repro: the motivating 64x64x64 fp32 matmul, in every precision mode,
 * next to the results other systems produced on the same inputs.
 *
 *   seed_repro --cpu DIR   tile IR -> precision pass -> CPU reference executor
 *   seed_repro --gpu DIR   tilec's compiler and CUDA runtime (exit 77: no GPU)
 *
 * DIR holds A.f32 and B.f32 (64x64 row-major little-endian float32, e.g.
 * tests/fixtures/seed64) and optionally results C_*.f32 of other systems.
 * For each mode (ieee, tf32-trunc, tf32-rna, tf32-rne, 3xtf32), then each
 * C_*.f32 file (by name), prints one line:
 *   mode=<mode or file stem> c00=<C[0][0], %.9f> relerr=<relative Frobenius error vs the fp64 product>
 * Exit status: 0 success, 1 failure (unreadable files, compile/run errors),
 * 2 usage, 77 --gpu without a usable GPU.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "ir/ir.h"
#include "reference/exec.h"
#include "tilec.h"

enum { N = 64, NN = N * N };

/* The @seed kernel of docs/TIR.md without a precision attribute, so the
 * mode comes from the compile option / the precision pass. */
static const char SEED[] =
    "kernel @seed(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>) grid(1, 1) warps(4) {\n"
    "  %va = view %A [64, 64] strides [64, 1]\n"
    "  %vb = view %B [64, 64] strides [64, 1]\n"
    "  %vc = view %C [64, 64] strides [64, 1]\n"
    "  %a = load %va[0, 0] : tile<64x64xf32>\n"
    "  %b = load %vb[0, 0] : tile<64x64xf32>\n"
    "  %z = zeros : tile<64x64xf32>\n"
    "  %c = dot %a, %b, %z : tile<64x64xf32>\n"
    "  store %c, %vc[0, 0]\n"
    "}\n";

static const TirPrecision MODES[] = {PREC_IEEE, PREC_TF32_TRUNC, PREC_TF32_RNA, PREC_TF32_RNE, PREC_3XTF32};
#define NMODES (sizeof MODES / sizeof MODES[0])

/* Reads exactly NN floats from dir/name; 0 with a message on failure. */
static int read_matrix(const char *dir, const char *name, float *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "seed_repro: cannot open %s: %s\n", path, strerror(errno));
        return 0;
    }
    size_t got = fread(out, sizeof(float), NN, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != NN || extra) {
        fprintf(stderr, "seed_repro: %s must hold exactly %d float32 values (64x64)\n", path, NN);
        return 0;
    }
    return 1;
}

static double relerr(const float *c, const double *ref)
{
    double num = 0, den = 0;
    for (int i = 0; i < NN; i++) {
        double d = (double)c[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return sqrt(num / den);
}

static void report(const char *mode, const float *c, const double *ref)
{
    printf("mode=%s c00=%.9f relerr=%.3e\n", mode, (double)c[0], relerr(c, ref));
}

/* ---- CPU: parse, precision pass, reference executor ---- */

static int run_cpu(const float *A, const float *B, TirPrecision mode, float *C)
{
    int rc = 1;
    Diag d;
    diag_init(&d, "seed.tir", SEED, sizeof SEED - 1);
    StrBuf err;
    sb_init(&err);
    TirModule *m = tir_module_new("seed.tir");
    if (!m) {
        fprintf(stderr, "seed_repro: out of memory\n");
        goto done;
    }
    if (tir_parse(m, SEED, sizeof SEED - 1, &d) || tir_verify(m, &d))
        goto done;
    /* The pass makes the mode explicit (round_tf32 ops, the 3xTF32 split);
     * what remains are ieee / tf32-trunc dots. tir_exec also implements
     * every mode directly (default_precision = mode on the unrewritten
     * module): tests/unit/test_exec.c checks both paths agree bit for bit. */
    if (pass_precision(m, mode, &d) || tir_verify(m, &d))
        goto done;
    void *pa = (void *)A, *pb = (void *)B, *pc = C;
    void *args[] = {&pa, &pb, &pc};
    if (tir_exec(m, 0, NULL, args, mode, &err)) {
        fprintf(stderr, "seed_repro: %s: %s", tir_precision_name(mode), err.data ? err.data : "failed\n");
        goto done;
    }
    rc = 0;
done:
    if (d.nerrors)
        fprintf(stderr, "seed_repro: %s: %s", tir_precision_name(mode), d.log.data ? d.log.data : "");
    sb_free(&err);
    diag_free(&d);
    tir_module_free(m);
    return rc;
}

/* ---- GPU: the public API ---- */

static int gpu_ok(tilecResult r, tilecRuntime rt, const char *what)
{
    if (r == TILEC_SUCCESS)
        return 1;
    const char *log = "";
    if (rt)
        tilecRuntimeGetLog(rt, &log);
    fprintf(stderr, "seed_repro: %s: %s\n%s", what, tilecGetErrorString(r), log ? log : "");
    return 0;
}

static int run_gpu(tilecRuntime rt, const char *arch, tilecDevicePtr dA, tilecDevicePtr dB, tilecDevicePtr dC,
                   TirPrecision mode, float *C)
{
    char prec[64];
    snprintf(prec, sizeof prec, "--precision=%s", tir_precision_name(mode));
    const char *opts[] = {prec, arch};
    tilecProgram prog = NULL;
    tilecModule mod = NULL;
    const char *log = "";
    int good = gpu_ok(tilecCreateProgram(&prog, SEED, sizeof SEED - 1, "seed.tir"), NULL, "tilecCreateProgram");
    if (good) {
        tilecResult r = tilecCompileProgram(prog, 2, opts);
        if (r != TILEC_SUCCESS) {
            tilecGetProgramLog(prog, &log);
            fprintf(stderr, "seed_repro: compiling with %s %s: %s\n%s", prec, arch, tilecGetErrorString(r),
                    log ? log : "");
            good = 0;
        }
    }
    good = good && gpu_ok(tilecModuleLoad(rt, prog, &mod), rt, "tilecModuleLoad");
    /* NaN everywhere first, so an element the kernel missed shows */
    good = good && gpu_ok(tilecMemsetD8(rt, dC, 0xFF, NN * sizeof(float)), rt, "tilecMemsetD8");
    void *args[] = {&dA, &dB, &dC};
    good = good && gpu_ok(tilecLaunch(mod, "seed", NULL, NULL, args), rt, "tilecLaunch");
    good = good && gpu_ok(tilecSynchronize(rt), rt, "tilecSynchronize");
    good = good && gpu_ok(tilecMemcpyDtoH(rt, C, dC, NN * sizeof(float)), rt, "tilecMemcpyDtoH");
    if (mod)
        tilecModuleUnload(&mod);
    if (prog)
        tilecDestroyProgram(&prog);
    return good ? 0 : 1;
}

/* Runs every mode on the GPU; 77 when there is none. */
static int gpu_modes(const float *A, const float *B, const double *ref)
{
    tilecRuntime rt = NULL;
    tilecResult r = tilecRuntimeCreate(&rt, 0);
    if (r == TILEC_ERROR_NO_DRIVER || r == TILEC_ERROR_NO_DEVICE) {
        const char *log = "";
        if (rt)
            tilecRuntimeGetLog(rt, &log);
        size_t len = log ? strlen(log) : 0;
        while (len && log[len - 1] == '\n')
            len--;
        fprintf(stderr, "seed_repro: no GPU: %.*s\n", (int)len, len ? log : tilecGetErrorString(r));
        tilecRuntimeDestroy(&rt);
        return 77;
    }
    if (!gpu_ok(r, rt, "tilecRuntimeCreate")) {
        tilecRuntimeDestroy(&rt);
        return 1;
    }
    int major = 0, minor = 0;
    tilecRuntimeComputeCapability(rt, &major, &minor);
    /* sm_90a code needs a Hopper; sm_80 code runs on Ampere and later */
    const char *arch = major == 9 ? "--arch=sm_90a" : "--arch=sm_80";
    tilecDevicePtr dA = 0, dB = 0, dC = 0;
    const size_t bytes = NN * sizeof(float);
    int good = gpu_ok(tilecMalloc(rt, &dA, bytes), rt, "tilecMalloc") &&
               gpu_ok(tilecMalloc(rt, &dB, bytes), rt, "tilecMalloc") &&
               gpu_ok(tilecMalloc(rt, &dC, bytes), rt, "tilecMalloc") &&
               gpu_ok(tilecMemcpyHtoD(rt, dA, A, bytes), rt, "tilecMemcpyHtoD") &&
               gpu_ok(tilecMemcpyHtoD(rt, dB, B, bytes), rt, "tilecMemcpyHtoD");
    static float C[NN];
    int failed = !good;
    /* a mode that fails to compile or run is reported; the others still run */
    for (size_t k = 0; good && k < NMODES; k++) {
        if (run_gpu(rt, arch, dA, dB, dC, MODES[k], C) == 0)
            report(tir_precision_name(MODES[k]), C, ref);
        else {
            fprintf(stderr, "seed_repro: mode %s failed on the GPU\n", tir_precision_name(MODES[k]));
            failed = 1;
        }
    }
    if (dA)
        tilecFree(rt, dA);
    if (dB)
        tilecFree(rt, dB);
    if (dC)
        tilecFree(rt, dC);
    tilecRuntimeDestroy(&rt);
    return failed ? 1 : 0;
}

/* ---- other systems' results ---- */

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Prints every DIR/C_*.f32, in name order. */
static int report_files(const char *dir, const double *ref)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        fprintf(stderr, "seed_repro: cannot list %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strncmp(e->d_name, "C_", 2) || strcmp(e->d_name + len - 4, ".f32"))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                rc = 1;
                break;
            }
            names = p;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = 1;
            break;
        }
        n++;
    }
    closedir(dp);
    if (rc)
        fprintf(stderr, "seed_repro: out of memory\n");
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    static float C[NN];
    for (size_t k = 0; k < n && !rc; k++) {
        if (!read_matrix(dir, names[k], C)) {
            rc = 1;
            break;
        }
        names[k][strlen(names[k]) - 4] = 0; /* the stem */
        report(names[k], C, ref);
    }
    for (size_t k = 0; k < n; k++)
        free(names[k]);
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "--cpu") && strcmp(argv[1], "--gpu"))) {
        fprintf(stderr, "usage: seed_repro --cpu|--gpu DIR   (DIR holds A.f32, B.f32 and optionally C_*.f32)\n");
        return 2;
    }
    const char *dir = argv[2];
    int gpu = !strcmp(argv[1], "--gpu");
    static float A[NN], B[NN], C[NN];
    static double ref[NN];
    if (!read_matrix(dir, "A.f32", A) || !read_matrix(dir, "B.f32", B))
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += (double)A[i * N + k] * (double)B[k * N + j];
            ref[i * N + j] = s;
        }
    if (gpu) {
        int rc = gpu_modes(A, B, ref);
        if (rc)
            return rc;
    } else {
        for (size_t k = 0; k < NMODES; k++) {
            if (run_cpu(A, B, MODES[k], C))
                return 1;
            report(tir_precision_name(MODES[k]), C, ref);
        }
    }
    return report_files(dir, ref);
}
