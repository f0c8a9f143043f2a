/*
 * The entry points a module compiles to, each compiled on its own, several
 * at once: a kernel is one entry, and a tf32-rna kernel whose views a
 * launch may pass rounded (TcKernelInfo.rounded) a second one for those
 * launches, which skips the rounding. As two entries rather than two loop
 * versions inside one kernel, each compiles like a kernel with one body,
 * the two at once (the benchmark's 128x256 GEMM: the whole tilec process
 * 74 -> 52 ms on two cores, ptxas --split-compile 0.42 -> 0.28 s;
 * bench/NOTES.md v18), and the launch picks one, knowing what it passes.
 *
 * Each entry is lowered, optimized and emitted in an LLVM context of its
 * own (lower.c: lw_lower_entry), on up to --jobs threads (parallel.c); the PTX modules
 * are then joined into one: the first's header, every entry's functions in
 * order, the trailers' lines once each (the .file table, the same for
 * every entry of one source). The output is the same bytes whatever the
 * number of threads.
 *
 * Needs: what lower.c needs. Guarantees: one PTX module with the kernels'
 * entries in their order (a kernel's rounded entry right after it) and one
 * TcKernelInfo per kernel, or errors in the log, each reported once.
 */
#include "compiler/lower.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DEFAULT_JOBS_MAX = 8 }; /* --jobs=0: one per CPU, at most this many */

typedef struct {
    uint32_t kernel; /* UINT32_MAX: none (a module without kernels) */
    int rounded;     /* the entry for views that come rounded */
    const TcOptions *o; /* the options; a rounded entry's without --remarks (its kernel's say it all) */
    TcLowered out;
    TcKernelInfo info;
    Diag d;
    int rc;
} Entry;

typedef struct {
    const TirModule *m;
    Entry *e;
} Work;

static void compile_entry(void *ctx, unsigned i)
{
    Work *w = ctx;
    Entry *e = &w->e[i];
    e->rc = lw_lower_entry(w->m, e->o, e->kernel, e->rounded, &e->out, &e->info, &e->d);
}

/* The header (up to the .address_size line) and where the trailer starts
 * (after the last function's closing brace). */
static size_t header_len(const char *p)
{
    const char *a = strstr(p, "\n.address_size");
    const char *nl = a ? strchr(a + 1, '\n') : NULL;
    return nl ? (size_t)(nl + 1 - p) : 0;
}

static size_t trailer_at(const char *p, size_t from)
{
    const char *last = NULL;
    for (const char *q = p + from; (q = strstr(q, "\n}\n")) != NULL; q += 2)
        last = q;
    return last ? (size_t)(last + 3 - p) : from;
}

/* Appends the lines of t[0..n) that trailer has not (the same .file
 * lines come from every entry). */
static void add_trailer_lines(StrBuf *trailer, const char *t, size_t n)
{
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (t + i)) + 1 : n - i;
        int seen = 0;
        for (size_t j = 0; trailer->data && j < trailer->len && !seen;) {
            const char *e = memchr(trailer->data + j, '\n', trailer->len - j);
            size_t l = e ? (size_t)(e - (trailer->data + j)) + 1 : trailer->len - j;
            seen = l == len && !memcmp(trailer->data + j, t + i, len);
            j += l;
        }
        if (!seen && !(len == 1 && t[i] == '\n'))
            sb_putn(trailer, t + i, len);
        i += len;
    }
}

/* The entries' PTX as one module (e[i] with keep[i]); NULL when memory
 * runs out or an entry's header differs from the first's (a tilec bug). */
static char *join_ptx(Entry *e, const int *keep, uint32_t n, Diag *d)
{
    const char *first = e[0].out.ptx;
    size_t h0 = header_len(first);
    StrBuf all, trailer;
    sb_init(&all);
    sb_init(&trailer);
    sb_putn(&all, first, h0);
    for (uint32_t i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        const char *p = e[i].out.ptx;
        size_t h = header_len(p), t = trailer_at(p, h), len = strlen(p);
        if (h != h0 || memcmp(p, first, h0) != 0) {
            diag_error(d, (TirLoc){0}, "internal error: the entry points' PTX headers differ (a tilec bug)");
            sb_free(&all);
            sb_free(&trailer);
            return NULL;
        }
        sb_putn(&all, p + h, t - h);
        add_trailer_lines(&trailer, p + t, len - t);
    }
    sb_putn(&all, trailer.data ? trailer.data : "", trailer.len);
    int oom = trailer.oom; /* its .file lines lost: the .loc lines would name nothing */
    sb_free(&trailer);
    if (all.oom || oom) {
        sb_free(&all);
        return NULL;
    }
    return sb_take(&all);
}

static void info_free(TcKernelInfo *k)
{
    free(k->name);
    free(k->params);
    free(k->tmaps);
    memset(k, 0, sizeof *k);
}

/* A rounded entry is launched in place of its kernel's: it must take the
 * same launch. */
static int same_launch(const TcKernelInfo *a, const TcKernelInfo *b)
{
    return a->threads == b->threads && a->shared_bytes == b->shared_bytes && a->persistent == b->persistent &&
           a->nparams == b->nparams && a->ntmaps == b->ntmaps;
}

int tc_lower(const TirModule *m, const TcOptions *o, TcLowered *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t n = 0;
    Entry *e = calloc(2 * (size_t)m->nkernels + 1, sizeof *e);
    int *keep = calloc(2 * (size_t)m->nkernels + 1, sizeof *keep);
    out->kernels = calloc(m->nkernels + 1, sizeof *out->kernels);
    if (!e || !keep || !out->kernels) {
        free(e);
        free(keep);
        free(out->kernels);
        out->kernels = NULL;
        diag_error(d, (TirLoc){0}, "out of memory");
        return -1;
    }
    TcOptions quiet = *o;
    quiet.remarks = 0;
    for (uint32_t k = 0; k < m->nkernels; k++) {
        e[n++] = (Entry){.kernel = k, .o = o};
        if (lw_has_rounded_entry(m, o, k))
            e[n++] = (Entry){.kernel = k, .rounded = 1, .o = &quiet};
    }
    if (!n) /* no kernel: the PTX header alone */
        e[n++] = (Entry){.kernel = UINT32_MAX, .o = o};
    for (uint32_t i = 0; i < n; i++) {
        diag_init(&e[i].d, d->file, d->src, d->srclen);
        e[i].d.max_errors = d->max_errors;
    }

    if (n > 1)
        tc_codegen_init();
    Work w = {.m = m, .e = e};
    /* --jobs, or one thread per CPU up to DEFAULT_JOBS_MAX (the option parser refuses more than
     * TC_MAX_JOBS; a caller that sets the field itself gets that many at most) */
    unsigned jobs = o->jobs > 0 ? (unsigned)o->jobs : tc_cpus();
    if (o->jobs <= 0 && jobs > DEFAULT_JOBS_MAX)
        jobs = DEFAULT_JOBS_MAX;
    out->threads = tc_parallel(n, jobs > TC_MAX_JOBS ? TC_MAX_JOBS : jobs, compile_entry, &w);
    out->nentries = m->nkernels ? n : 0;

    /* the messages, each once: a rounded entry's only where its kernel's
     * own entry compiled (the same source, the same remarks and errors) */
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        Entry *x = &e[i];
        keep[i] = x->rc == 0;
        if (x->rounded) {
            Entry *own = x - 1;
            keep[i] &= own->rc == 0 && same_launch(&own->info, &x->info);
            if (own->rc != 0)
                continue;
            if (x->rc == 0 && !keep[i]) {
                if (o->remarks)
                    diag_remark(d, (TirLoc){0}, "@%s has no entry for rounded views: it would take another launch",
                                own->info.name ? own->info.name : "?");
                continue;
            }
            own->info.rounded = keep[i];
        }
        sb_putn(&d->log, x->d.log.data ? x->d.log.data : "", x->d.log.len);
        d->nerrors += x->d.nerrors;
        if (x->rc != 0)
            rc = -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        out->ms_lower += e[i].out.ms_lower;
        out->ms_opt += e[i].out.ms_opt;
        out->ms_codegen += e[i].out.ms_codegen;
    }
    if (m->nkernels) {
        for (uint32_t i = 0; i < n; i++)
            if (!e[i].rounded)
                out->kernels[out->nkernels++] = e[i].info;
            else
                info_free(&e[i].info);
    }
    /* the IR: one module per entry, each headed by its name where there are several */
    if (o->keep_llvm_ir) {
        StrBuf ir;
        sb_init(&ir);
        for (uint32_t i = 0; i < n; i++) {
            if (n > 1)
                sb_printf(&ir, "; ----- tilec: the LLVM module of entry @%s%s -----\n",
                          e[i].kernel < m->nkernels ? tir_str(m, m->kernels[e[i].kernel].name) : "",
                          e[i].rounded ? TC_ROUNDED_SUFFIX : "");
            sb_puts(&ir, e[i].out.llvm_ir ? e[i].out.llvm_ir : "");
        }
        out->llvm_ir = ir.oom ? NULL : sb_take(&ir);
        if (ir.oom)
            sb_free(&ir);
    }
    if (rc == 0) {
        if (n == 1) {
            out->ptx = e[0].out.ptx;
            e[0].out.ptx = NULL;
        } else if (!(out->ptx = join_ptx(e, keep, n, d))) {
            if (!d->nerrors)
                diag_error(d, (TirLoc){0}, "out of memory");
            rc = -1;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        free(e[i].out.ptx);
        free(e[i].out.llvm_ir);
        diag_free(&e[i].d);
    }
    free(e);
    free(keep);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->ms_entries = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    return rc;
}
