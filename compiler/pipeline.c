/*
 * The whole compile, in order. Every stage is listed here and nowhere else:
 *
 *   parse (ir/parse.c)            .tir text -> tile IR
 *   verify (ir/verify.c)          after parsing and after every pass
 *   wgmma (pass_wgmma.c)          sm_90a: marks GEMM loops for the wgmma pipeline
 *   mma (pass_mma.c)              marks the GEMM loops left for the cp.async + mma.sync
 *                                 pipeline (sm_80's)
 *   precision (pass_precision.c)  f32 dots -> explicit TF32 rounding / 3xTF32 split
 *   prefetch (pass_prefetch.c)    loop loads issued one iteration ahead
 *   entries (entries.c)           each kernel entry point (tf32-rna: two) on a thread
 *                                 of its own, in an LLVM context of its own, through:
 *     lower (lower*.c)              tile IR -> LLVM IR (NVPTX)
 *     optimize + codegen (codegen.c) LLVM new pass manager, NVPTX -> PTX
 *                                 then the entries' PTX joined into one module
 *
 * --dump-after=all|<pass> records the tile IR after the named passes;
 * TcOptions.stop_after ends the compile after parse or after the passes.
 */
#include "compiler/compiler.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double tc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *print_module(const TirModule *m)
{
    StrBuf b;
    sb_init(&b);
    tir_print(m, &b);
    return sb_take(&b);
}

static int wants_dump(const TcOptions *o, const char *pass)
{
    return (o->dump_after & tc_pass_bit(pass, strlen(pass))) != 0;
}

/* Verifies between passes; an error here is a compiler bug, said so. */
static int verify_after(const TirModule *m, const TcOptions *o, const char *pass, Diag *d)
{
    if (!o->verify)
        return 0;
    int before = d->nerrors;
    tir_verify(m, d);
    if (d->nerrors > before) {
        diag_note(d, (TirLoc){0}, "the tile IR is invalid after pass '%s' (a tilec bug; --no-verify skips the check)", pass);
        return -1;
    }
    return 0;
}

static void dump(const TirModule *m, const TcOptions *o, const char *pass, StrBuf *passes)
{
    if (!wants_dump(o, pass))
        return;
    sb_printf(passes, "// ----- tile IR after %s -----\n", pass);
    tir_print(m, passes);
}

int tc_compile(const char *file, const char *src, size_t len, const TcOptions *opts, TcResult *out, StrBuf *log)
{
    memset(out, 0, sizeof *out);
    if (len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3)) { /* the byte order mark some editors write: not text */
        src += 3;
        len -= 3;
    }
    Diag d;
    diag_init(&d, file, src, len);
    StrBuf passes;
    sb_init(&passes);
    int rc = -1;
    TirModule *m = tir_module_new(file);
    if (!m) {
        sb_puts(log, "error: out of memory\n");
        goto done;
    }

    /* each stage's time, also where it fails (--time) */
    double t0 = tc_now_ms();
    if (tir_parse_defs(m, src, len, &opts->defines, &d) != 0 || d.nerrors || verify_after(m, opts, "parse", &d)) {
        out->ms_parse = tc_now_ms() - t0;
        goto done;
    }
    out->tir_input = print_module(m);
    dump(m, opts, "parse", &passes);
    out->ms_parse = tc_now_ms() - t0;
    if (opts->stop_after == TC_STOP_PARSE) {
        rc = 0;
        goto done;
    }

    t0 = tc_now_ms();
    int bad = pass_wgmma(m, opts, &d) != 0 || verify_after(m, opts, "wgmma", &d);
    if (!bad) {
        dump(m, opts, "wgmma", &passes);
        bad = pass_mma(m, opts, &d) != 0 || verify_after(m, opts, "mma", &d);
    }
    if (!bad) {
        dump(m, opts, "mma", &passes);
        bad = pass_precision(m, opts->precision, &d) != 0 || verify_after(m, opts, "precision", &d);
    }
    if (!bad) {
        dump(m, opts, "precision", &passes);
        bad = opts->prefetch && (pass_prefetch(m, &d) != 0 || verify_after(m, opts, "prefetch", &d));
    }
    if (!bad && opts->prefetch)
        dump(m, opts, "prefetch", &passes);
    if (!bad)
        out->tir = print_module(m);
    out->ms_passes = tc_now_ms() - t0;
    if (bad || opts->stop_after == TC_STOP_PASSES) {
        rc = bad ? -1 : 0;
        goto done;
    }

    TcLowered low = {0};
    int lrc = tc_lower(m, opts, &low, &d);
    out->llvm_ir = low.llvm_ir;
    out->ptx = low.ptx;
    out->kernels = low.kernels;
    out->nkernels = low.nkernels;
    out->ms_lower = low.ms_lower;
    out->ms_opt = low.ms_opt;
    out->ms_codegen = low.ms_codegen;
    out->ms_entries = low.ms_entries;
    out->nentries = low.nentries;
    out->threads = low.threads;
    out->unit_times = low.unit_times;
    if (lrc != 0 || d.nerrors)
        goto done;
    rc = 0;
done:
    if (m && m->oom)
        sb_puts(log, "error: out of memory (or an IR size limit was exceeded)\n");
    sb_putn(log, d.log.data ? d.log.data : "", d.log.len);
    if (rc != 0 && !d.nerrors && !(m && m->oom) && log->len == 0)
        sb_puts(log, "error: compilation failed\n");
    out->tir_passes = sb_take(&passes);
    diag_free(&d);
    tir_module_free(m);
    return rc;
}

void tc_result_free(TcResult *r)
{
    if (!r)
        return;
    free(r->tir_input);
    free(r->tir);
    free(r->tir_passes);
    free(r->llvm_ir);
    free(r->ptx);
    free(r->unit_times);
    for (unsigned i = 0; i < r->nkernels; i++) {
        free(r->kernels[i].name);
        free(r->kernels[i].params);
        free(r->kernels[i].tmaps);
    }
    free(r->kernels);
    memset(r, 0, sizeof *r);
}
