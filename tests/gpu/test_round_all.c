/*
 * All 2^32 f32 bit patterns through the GPU's TF32 rounding, compared with
 * the CPU emulation in reference/round.c:
 *   - raw hardware cvt.rna.tf32.f32 and cvt.rn.tf32.f32 (through inline_ptx,
 *     sm_90a) against tf32_hw_cvt_rna / tf32_hw_cvt_rn;
 *   - tilec's round_tf32 {trunc, rna, rne} lowered for sm_90a and for sm_80
 *     (where rne is integer emulation) against tf32_round.
 * Any mismatch fails, with the first few patterns printed.
 * TILEC_ROUND_CHUNKS=n checks only the first n of 64 chunks (quick runs).
 */
#include "gpu_common.h"
#include "reference/round.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_PER_PROGRAM 4
#define COLS 1024
#define CHUNK (1u << 26) /* patterns per launch */

static const char *src90 =
    "kernel @round(%X: ptr<f32>, %Y: ptr<f32>, %rows: i32) warps(8) {\n"
    "  %p = program_id 0\n"
    "  %r0 = mul %p, 4\n"
    "  %vx = view %X [%rows, 1024] strides [1024, 1]\n"
    "  %x = load %vx[%r0, 0] : tile<4x1024xf32>\n"
    "  %rows5 = mul %rows, 5\n"
    "  %vy = view %Y [%rows5, 1024] strides [1024, 1]\n"
    "  %q1 = add %r0, %rows\n"
    "  %q2 = add %q1, %rows\n"
    "  %q3 = add %q2, %rows\n"
    "  %q4 = add %q3, %rows\n"
    "  %hw_rna = inline_ptx \"cvt.rna.tf32.f32 $0, $1;\" %x : tile<4x1024xf32>\n"
    "  %hw_rn = inline_ptx \"cvt.rn.tf32.f32 $0, $1;\" %x : tile<4x1024xf32>\n"
    "  %t = round_tf32 %x {mode = trunc} : tile<4x1024xf32>\n"
    "  %a = round_tf32 %x {mode = rna} : tile<4x1024xf32>\n"
    "  %e = round_tf32 %x {mode = rne} : tile<4x1024xf32>\n"
    "  store %hw_rna, %vy[%r0, 0]\n"
    "  store %hw_rn, %vy[%q1, 0]\n"
    "  store %t, %vy[%q2, 0]\n"
    "  store %a, %vy[%q3, 0]\n"
    "  store %e, %vy[%q4, 0]\n"
    "}\n";

/* sm_80 has no cvt.rn.tf32: only the op forms (rne = integer emulation) */
static const char *src80 =
    "kernel @round(%X: ptr<f32>, %Y: ptr<f32>, %rows: i32) warps(8) {\n"
    "  %p = program_id 0\n"
    "  %r0 = mul %p, 4\n"
    "  %vx = view %X [%rows, 1024] strides [1024, 1]\n"
    "  %rows5 = mul %rows, 5\n"
    "  %vy = view %Y [%rows5, 1024] strides [1024, 1]\n"
    "  %q1 = add %r0, %rows\n"
    "  %q2 = add %q1, %rows\n"
    "  %q3 = add %q2, %rows\n"
    "  %q4 = add %q3, %rows\n"
    "  %x = load %vx[%r0, 0] : tile<4x1024xf32>\n"
    "  %t = round_tf32 %x {mode = trunc} : tile<4x1024xf32>\n"
    "  %a = round_tf32 %x {mode = rna} : tile<4x1024xf32>\n"
    "  %e = round_tf32 %x {mode = rne} : tile<4x1024xf32>\n"
    "  store %t, %vy[%q2, 0]\n"
    "  store %a, %vy[%q3, 0]\n"
    "  store %e, %vy[%q4, 0]\n"
    "}\n";

typedef struct {
    const uint32_t *in, *out;
    size_t begin, end;
    int sm90;
    size_t mismatches[5];
    uint32_t first[5];
} Job;

static uint32_t expect(int which, uint32_t x)
{
    switch (which) {
    case 0: return tf32_hw_cvt_rna(x);
    case 1: return tf32_hw_cvt_rn(x);
    case 2: return tf32_round(x, ROUND_TRUNC);
    case 3: return tf32_round(x, ROUND_RNA);
    default: return tf32_round(x, ROUND_RNE);
    }
}

static void *check(void *arg)
{
    Job *j = arg;
    for (size_t i = j->begin; i < j->end; i++)
        for (int w = j->sm90 ? 0 : 2; w < 5; w++) {
            uint32_t got = j->out[(size_t)w * CHUNK + i], want = expect(w, j->in[i]);
            if (got != want && j->mismatches[w]++ == 0)
                j->first[w] = j->in[i];
        }
    return NULL;
}

static const char *const names[5] = {"cvt.rna.tf32.f32 (hw)", "cvt.rn.tf32.f32 (hw)", "round_tf32 trunc",
                                     "round_tf32 rna", "round_tf32 rne"};

int main(void)
{
    tilecRuntime rt = gpu_open();
    const char *env = getenv("TILEC_ROUND_CHUNKS");
    unsigned nchunks = env && atoi(env) > 0 && atoi(env) <= 64 ? (unsigned)atoi(env) : 64;
    uint32_t *in = malloc((size_t)CHUNK * 4), *out = malloc((size_t)CHUNK * 4 * 5);
    if (!in || !out) {
        fprintf(stderr, "FAIL: out of host memory\n");
        return 1;
    }
    tilecDevicePtr dx = gpu_alloc(rt, (size_t)CHUNK * 4), dy = gpu_alloc(rt, (size_t)CHUNK * 4 * 5);
    int failed = 0;
    for (int sm90 = 1; sm90 >= 0; sm90--) {
        const char *opt = sm90 ? "--arch=sm_90a" : "--arch=sm_80";
        tilecModule mod = gpu_load(rt, sm90 ? src90 : src80, "round.tir", 1, &opt);
        size_t total[5] = {0};
        uint32_t first[5] = {0};
        double t0 = gpu_now_ms();
        for (unsigned c = 0; c < nchunks; c++) {
            for (uint32_t i = 0; i < CHUNK; i++)
                in[i] = c * CHUNK + i;
            gpu_poison(rt, dy, (size_t)CHUNK * 4 * 5);
            gpu_check_at(tilecMemcpyHtoD(rt, dx, in, (size_t)CHUNK * 4), rt, "upload", __FILE__, __LINE__);
            int32_t rows = CHUNK / COLS;
            void *args[] = {&dx, &dy, &rows};
            unsigned grid[3] = {(unsigned)(rows / ROWS_PER_PROGRAM), 1, 1};
            GPU_CHECK(rt, tilecLaunch(mod, "round", grid, NULL, args));
            gpu_download(rt, out, dy, (size_t)CHUNK * 4 * 5);
            enum { NT = 16 };
            Job jobs[NT];
            pthread_t th[NT];
            for (int t = 0; t < NT; t++) {
                jobs[t] = (Job){.in = in, .out = out, .begin = (size_t)CHUNK / NT * t,
                                .end = (size_t)CHUNK / NT * (t + 1), .sm90 = sm90};
                pthread_create(&th[t], NULL, check, &jobs[t]);
            }
            for (int t = 0; t < NT; t++) {
                pthread_join(th[t], NULL);
                for (int w = 0; w < 5; w++) {
                    if (jobs[t].mismatches[w] && !total[w])
                        first[w] = jobs[t].first[w];
                    total[w] += jobs[t].mismatches[w];
                }
            }
        }
        for (int w = sm90 ? 0 : 2; w < 5; w++) {
            printf("%s %-24s %llu patterns: %zu mismatches", opt + 7, names[w],
                   (unsigned long long)nchunks * CHUNK, total[w]);
            if (total[w])
                printf(" (first 0x%08x: gpu vs cpu 0x%08x)", first[w], expect(w, first[w]));
            printf("\n");
            failed |= total[w] != 0;
        }
        printf("%s: %.1f s\n", opt + 7, (gpu_now_ms() - t0) / 1e3);
        tilecModuleUnload(&mod);
    }
    tilecFree(rt, dx);
    tilecFree(rt, dy);
    free(in);
    free(out);
    gpu_close(&rt);
    printf("%s\n", failed ? "FAIL" : "PASS");
    return failed;
}
