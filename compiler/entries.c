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
 * own (lower.c: lw_lower_entry), on up to --jobs threads (parallel.c); with
 * -frole-functions a persistent pipeline's entry is two such units, the
 * entry and its producers' function (lower_programs.c), the function's PTX
 * body then spliced into the entry's (ptx_splice.c). The PTX modules are
 * joined into one: the first's header, every entry's functions in order,
 * the trailers' lines once each (the .file table, the same for every entry
 * of one source). The output is the same bytes whatever the number of
 * threads (no entry has a call: NVPTX numbers calls' callseq comments per
 * process).
 *
 * Needs: what lower.c needs. Guarantees: one PTX module with the kernels'
 * entries in their order (a kernel's rounded entry right after it) and one
 * TcKernelInfo per kernel, or errors in the log, each reported once.
 */
#include "compiler/lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DEFAULT_JOBS_MAX = 8 }; /* --jobs=0: one per CPU, at most this many */

typedef struct {
    uint32_t kernel; /* UINT32_MAX: none (a module without kernels) */
    int rounded;     /* the entry for views that come rounded */
    int part;        /* TC_PART_ALL, or the part of its entry point this unit compiles */
    uint32_t main;   /* the unit of its entry point's TC_PART_ALL or TC_PART_MAIN */
    const TcOptions *o; /* the options; a rounded entry's and a non-main part's without --remarks
                         * (its kernel's main part says it all) */
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
    e->rc = lw_lower_entry(w->m, e->o, e->kernel, e->rounded, e->part, &e->out, &e->info, &e->d);
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

/* The entries' PTX as one module (units with keep[i] and PTX): the first's
 * header, each unit's functions in order, the trailers' lines once each;
 * a producers' part's function spliced into its entry's (ptx_splice.c).
 * NULL when memory runs out or a unit's PTX is not as expected (a tilec
 * bug, said in d). */
static char *join_ptx(const TirModule *m, Entry *e, const int *keep, uint32_t n, Diag *d)
{
    const char *first = NULL;
    for (uint32_t i = 0; i < n && !first; i++)
        if (keep[i] && e[i].out.ptx)
            first = e[i].out.ptx;
    if (!first)
        first = e[0].out.ptx ? e[0].out.ptx : "";
    size_t h0 = header_len(first);
    StrBuf all, trailer;
    sb_init(&all);
    sb_init(&trailer);
    sb_putn(&all, first, h0);
    for (uint32_t i = 0; i < n; i++) {
        if (!keep[i] || !e[i].out.ptx || e[i].part == TC_PART_PRODUCERS)
            continue;
        char *spliced = NULL;
        const Entry *prod = e[i].part == TC_PART_MAIN && i + 1 < n && e[i + 1].main == i ? &e[i + 1] : NULL;
        if (prod && !prod->out.ptx) /* nothing split after all (lw_keep_part) */
            prod = NULL;
        if (prod) {
            char entry[1100], fn[1200];
            snprintf(entry, sizeof entry, "%s%s", tir_str(m, m->kernels[e[i].kernel].name),
                     e[i].rounded ? TC_ROUNDED_SUFFIX : "");
            snprintf(fn, sizeof fn, "%s%s", entry, TC_ROLE_PRODUCERS);
            const char *why;
            spliced = tc_ptx_splice(e[i].out.ptx, strlen(e[i].out.ptx), prod->out.ptx, fn, entry, &why);
            if (!spliced) {
                if (!strcmp(why, "out of memory"))
                    diag_error(d, (TirLoc){0}, "out of memory");
                else
                    diag_error(d, (TirLoc){0}, "internal error: @%s's producers cannot go into it: %s (a tilec bug)",
                               entry, why);
                sb_free(&all);
                sb_free(&trailer);
                return NULL;
            }
        }
        const char *p = spliced ? spliced : e[i].out.ptx;
        size_t h = header_len(p), t = trailer_at(p, h), len = strlen(p);
        if (h != h0 || memcmp(p, first, h0) != 0) {
            diag_error(d, (TirLoc){0}, "internal error: the entry points' PTX headers differ (a tilec bug)");
            free(spliced);
            sb_free(&all);
            sb_free(&trailer);
            return NULL;
        }
        sb_putn(&all, p + h, t - h);
        add_trailer_lines(&trailer, p + t, len - t);
        if (prod) { /* the producers' .file lines */
            const char *q = prod->out.ptx;
            size_t qt = trailer_at(q, header_len(q));
            add_trailer_lines(&trailer, q + qt, strlen(q) - qt);
        }
        free(spliced);
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

/* Units e[*n ..] for entry point `rounded` of kernel k: one, or one per
 * part where its roles are functions (lw_entry_shape). */
static void add_units(Entry *e, uint32_t *n, uint32_t k, int rounded, int parts, const TcOptions *o,
                      const TcOptions *quiet)
{
    uint32_t main = *n;
    for (int p = 0; p < parts; p++)
        e[(*n)++] = (Entry){.kernel = k,
                            .rounded = rounded,
                            .part = parts == 1 ? TC_PART_ALL : p ? TC_PART_PRODUCERS : TC_PART_MAIN,
                            .main = main,
                            .o = p ? quiet : o};
}

int tc_lower(const TirModule *m, const TcOptions *o, TcLowered *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t n = 0, entries = 0;
    Entry *e = calloc(4 * (size_t)m->nkernels + 1, sizeof *e);
    int *keep = calloc(4 * (size_t)m->nkernels + 1, sizeof *keep);
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
        int rounded, parts;
        lw_entry_shape(m, o, k, &rounded, &parts);
        add_units(e, &n, k, 0, parts, o, &quiet);
        entries++;
        if (rounded) {
            add_units(e, &n, k, 1, parts, &quiet, &quiet);
            entries++;
        }
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
    out->nentries = m->nkernels ? entries : 0;

    /* an entry point compiled where each of its parts did */
    for (uint32_t i = 0; i < n; i++)
        if (e[i].rc != 0)
            e[e[i].main].rc = e[e[i].main].rc ? e[e[i].main].rc : e[i].rc;
    /* the messages, each once: a part's (none but its own errors: it lowers what its main part
     * lowers) only where its main part compiled, a rounded entry's only where its kernel's own
     * entry compiled (the same source, the same remarks and errors) */
    int rc = 0;
    uint32_t own = 0; /* the kernel's own entry's main unit */
    for (uint32_t i = 0; i < n; i++) {
        Entry *x = &e[i], *mx = &e[x->main];
        if (x->part == TC_PART_PRODUCERS) {
            if (x->rounded && e[own].rc != 0) /* as for the rounded entry itself: said by the kernel's */
                continue;
            if (x->rc != 0 && mx->d.nerrors == 0) { /* its own error (mx->rc is this one's) */
                sb_putn(&d->log, x->d.log.data ? x->d.log.data : "", x->d.log.len);
                d->nerrors += x->d.nerrors;
                rc = -1;
            }
            continue;
        }
        if (!x->rounded)
            own = i;
        keep[i] = x->rc == 0;
        if (x->rounded) {
            Entry *ox = &e[own];
            keep[i] &= ox->rc == 0 && same_launch(&ox->info, &x->info);
            if (ox->rc != 0)
                continue;
            if (x->rc == 0 && !keep[i]) {
                if (o->remarks)
                    diag_remark(d, (TirLoc){0}, "@%s has no entry for rounded views: it would take another launch",
                                ox->info.name ? ox->info.name : "?");
                continue;
            }
            ox->info.rounded = keep[i];
        }
        sb_putn(&d->log, x->d.log.data ? x->d.log.data : "", x->d.log.len);
        d->nerrors += x->d.nerrors;
        if (x->rc != 0)
            rc = -1;
    }
    StrBuf units;
    sb_init(&units);
    for (uint32_t i = 0; i < n; i++) {
        keep[i] = keep[e[i].main];
        out->ms_lower += e[i].out.ms_lower;
        out->ms_opt += e[i].out.ms_opt;
        out->ms_codegen += e[i].out.ms_codegen;
        if (e[i].kernel < m->nkernels)
            sb_printf(&units, "@%s%s%s: lower %.3f ms, optimize %.3f ms, codegen %.3f ms\n",
                      tir_str(m, m->kernels[e[i].kernel].name), e[i].rounded ? TC_ROUNDED_SUFFIX : "",
                      e[i].part == TC_PART_PRODUCERS ? " (its producers)"
                      : e[i].part == TC_PART_MAIN    ? " (without its producers)"
                                                     : "",
                      e[i].out.ms_lower, e[i].out.ms_opt, e[i].out.ms_codegen);
    }
    out->unit_times = units.oom ? NULL : sb_take(&units); /* for --time: a few lines a compile */
    if (units.oom)
        sb_free(&units);
    if (m->nkernels) {
        for (uint32_t i = 0; i < n; i++)
            if (!e[i].rounded && e[i].part != TC_PART_PRODUCERS)
                out->kernels[out->nkernels++] = e[i].info;
            else
                info_free(&e[i].info);
    }
    /* the IR: one module per unit, each headed by its entry's name (and part) where there are several */
    if (o->keep_llvm_ir) {
        StrBuf ir;
        sb_init(&ir);
        for (uint32_t i = 0; i < n; i++) {
            if (e[i].part == TC_PART_PRODUCERS && !e[i].out.llvm_ir)
                continue; /* nothing in it */
            if (n > 1)
                sb_printf(&ir, "; ----- tilec: the LLVM module of entry @%s%s%s -----\n",
                          e[i].kernel < m->nkernels ? tir_str(m, m->kernels[e[i].kernel].name) : "",
                          e[i].rounded ? TC_ROUNDED_SUFFIX : "",
                          e[i].part == TC_PART_MAIN        ? " (the entry)"
                          : e[i].part == TC_PART_PRODUCERS ? " (its producers' function)"
                                                           : "");
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
        } else if (!(out->ptx = join_ptx(m, e, keep, n, d))) {
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
