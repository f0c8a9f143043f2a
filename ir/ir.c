/*
 * The module's arrays and their builders, the ops table, type helpers.
 * Allocation failures never abort: they set m->oom and return index 0.
 */
#include "ir.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

const TirOpInfo tir_ops[OP_COUNT] = {
    [OP_NONE] = {"<none>", 0, 0},
#define OP(e, name, nargs, flags) [OP_##e] = {name, nargs, flags},
#include "ops.h"
#undef OP
};

TirOp tir_op_lookup(const char *name, size_t len)
{
    for (int i = 1; i < OP_COUNT; i++)
        if (strlen(tir_ops[i].name) == len && memcmp(tir_ops[i].name, name, len) == 0)
            return (TirOp)i;
    return OP_NONE;
}

/* ---- types ---- */

static const char *const elem_names[] = {"none", "i32", "i64", "f16", "bf16", "f32"};

const char *tir_elem_name(TirElem e) { return (unsigned)e <= ELEM_F32 ? elem_names[e] : "?"; }
int tir_elem_is_float(TirElem e) { return e == ELEM_F16 || e == ELEM_BF16 || e == ELEM_F32; }

/* NaN: the f32's sign and 23 payload bits in the double's sign and its
 * payload's top bits (the quiet bit on the quiet bit); moved by memcpy, no
 * floating-point operation touches them */
double tir_f32_value(uint32_t bits)
{
    double d;
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu)) {
        uint64_t b = (uint64_t)(bits >> 31) << 63 | 0x7ffull << 52 | (uint64_t)(bits & 0x7fffffu) << 29;
        memcpy(&d, &b, sizeof d);
    } else {
        float f;
        memcpy(&f, &bits, sizeof f);
        d = f;
    }
    return d;
}

uint32_t tir_f32_bits(double v)
{
    uint32_t bits;
    if (isnan(v)) {
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        uint32_t payload = (uint32_t)(b >> 29) & 0x7fffffu;
        bits = (uint32_t)(b >> 63) << 31 | 0x7f800000u | (payload ? payload : 0x400000u);
    } else {
        float f = (float)v;
        memcpy(&bits, &f, sizeof bits);
    }
    return bits;
}

int tir_elem_bits(TirElem e)
{
    switch (e) {
    case ELEM_I64: return 64;
    case ELEM_I32: case ELEM_F32: return 32;
    case ELEM_F16: case ELEM_BF16: return 16;
    default: return 0;
    }
}

int tir_type_eq(TirType a, TirType b)
{
    if (a.kind != b.kind || a.elem != b.elem)
        return 0;
    if (a.kind == TY_VIEW)
        return a.rank == b.rank;
    if (a.kind == TY_TILE)
        return a.dim[0] == b.dim[0] && a.dim[1] == b.dim[1];
    return 1;
}

TirType tir_scalar(TirElem e) { return (TirType){.kind = TY_SCALAR, .elem = (uint8_t)e}; }
TirType tir_tile(TirElem e, uint32_t rows, uint32_t cols)
{
    return (TirType){.kind = TY_TILE, .elem = (uint8_t)e, .dim = {rows, cols}};
}

char *tir_type_str(TirType t, char *buf, size_t size)
{
    const char *e = tir_elem_name((TirElem)t.elem);
    switch (t.kind) {
    case TY_SCALAR: snprintf(buf, size, "%s", e); break;
    case TY_PTR:    snprintf(buf, size, "ptr<%s>", e); break;
    case TY_VIEW:   snprintf(buf, size, "view<%ux%s>", t.rank, e); break;
    case TY_TILE:   snprintf(buf, size, "tile<%ux%ux%s>", t.dim[0], t.dim[1], e); break;
    default:        snprintf(buf, size, "none"); break;
    }
    return buf;
}

static const char *const prec_names[PREC_COUNT] = {
    "default", "ieee", "tf32-trunc", "tf32-rna", "tf32-rne", "3xtf32"};

const char *tir_precision_name(TirPrecision p) { return (unsigned)p < PREC_COUNT ? prec_names[p] : "?"; }
TirPrecision tir_precision_lookup(const char *s, size_t len)
{
    for (int i = 1; i < PREC_COUNT; i++)
        if (strlen(prec_names[i]) == len && memcmp(prec_names[i], s, len) == 0)
            return (TirPrecision)i;
    return PREC_DEFAULT;
}

static const char *const round_names[ROUND_COUNT] = {"trunc", "rna", "rne"};
const char *tir_round_name(TirRound r) { return (unsigned)r < ROUND_COUNT ? round_names[r] : "?"; }
int tir_round_lookup(const char *s, size_t len)
{
    for (int i = 0; i < ROUND_COUNT; i++)
        if (strlen(round_names[i]) == len && memcmp(round_names[i], s, len) == 0)
            return i;
    return -1;
}

/* ---- arrays ---- */

/* Grows *arr so that it holds n+1 items of size sz; 0 on failure. */
static int grow(TirModule *m, void **arr, uint32_t *cap, uint32_t n, size_t sz, uint32_t limit)
{
    if (m->oom)
        return 0;
    if (n + 1 > limit) {
        m->oom = 1;
        return 0;
    }
    if (n + 1 <= *cap)
        return 1;
    uint32_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < n + 1)
        ncap *= 2;
    void *p = realloc(*arr, (size_t)ncap * sz);
    if (!p) {
        m->oom = 1;
        return 0;
    }
    *arr = p;
    *cap = ncap;
    return 1;
}

TirModule *tir_module_new(const char *file)
{
    TirModule *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->file = strdup(file ? file : "<input>");
    if (!m->file) {
        free(m);
        return NULL;
    }
    /* index 0 of each array is the reserved "none" entry */
    tir_add_string(m, "", 0);
    m->ninsts = m->nvalues = m->nblocks = 1;
    if (!grow(m, (void **)&m->insts, &m->cap_insts, 1, sizeof *m->insts, TIR_MAX_INSTS) ||
        !grow(m, (void **)&m->values, &m->cap_values, 1, sizeof *m->values, UINT32_MAX / 2) ||
        !grow(m, (void **)&m->blocks, &m->cap_blocks, 1, sizeof *m->blocks, UINT32_MAX / 2)) {
        tir_module_free(m);
        return NULL;
    }
    /* the pool always exists, so pool + offset is never NULL + 0 */
    if (!grow(m, (void **)&m->pool, &m->cap_pool, 1, sizeof *m->pool, UINT32_MAX / 8)) {
        tir_module_free(m);
        return NULL;
    }
    memset(&m->insts[0], 0, sizeof m->insts[0]);
    memset(&m->values[0], 0, sizeof m->values[0]);
    memset(&m->blocks[0], 0, sizeof m->blocks[0]);
    return m;
}

void tir_module_free(TirModule *m)
{
    if (!m)
        return;
    free(m->file);
    free(m->insts);
    free(m->values);
    free(m->blocks);
    free(m->kernels);
    free(m->pool);
    free(m->strs);
    free(m);
}

uint32_t tir_add_string(TirModule *m, const char *s, size_t len)
{
    if (len > (1u << 24) || !grow(m, (void **)&m->strs, &m->cap_strs, m->nstrs + (uint32_t)len, 1, UINT32_MAX / 2))
        return (m->oom = 1), 0;
    uint32_t off = m->nstrs;
    memcpy(m->strs + off, s, len);
    m->strs[off + len] = 0;
    m->nstrs += (uint32_t)len + 1;
    return off;
}

uint32_t tir_add_value(TirModule *m, TirType t, TirValueKind kind, uint32_t def, uint32_t index, uint32_t name)
{
    if (!grow(m, (void **)&m->values, &m->cap_values, m->nvalues, sizeof *m->values, TIR_MAX_INSTS * 4))
        return 0;
    m->values[m->nvalues] = (TirValue){.type = t, .kind = (uint8_t)kind, .def = def, .index = index, .name = name};
    return m->nvalues++;
}

uint32_t tir_add_inst(TirModule *m, TirOp op, TirLoc loc)
{
    if (!grow(m, (void **)&m->insts, &m->cap_insts, m->ninsts, sizeof *m->insts, TIR_MAX_INSTS))
        return 0;
    m->insts[m->ninsts] = (TirInst){.op = (uint16_t)op, .loc = loc};
    return m->ninsts++;
}

uint32_t tir_add_block(TirModule *m)
{
    if (!grow(m, (void **)&m->blocks, &m->cap_blocks, m->nblocks, sizeof *m->blocks, TIR_MAX_INSTS))
        return 0;
    m->blocks[m->nblocks] = (TirBlock){0};
    return m->nblocks++;
}

int tir_kernel_name_ok(const char *s, size_t n)
{
    if (n == 0 || (s[0] == '_' && n == 1) || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return !(n == 7 && !memcmp(s, "WARP_SZ", 7)) && !(n >= 8 && !memcmp(s, "__tilec_", 8));
}

uint32_t tir_add_kernel(TirModule *m)
{
    if (!grow(m, (void **)&m->kernels, &m->cap_kernels, m->nkernels, sizeof *m->kernels, 1u << 16))
        return UINT32_MAX;
    m->kernels[m->nkernels] = (TirKernel){.warps = 4};
    return m->nkernels++;
}

uint32_t tir_pool_push(TirModule *m, const uint32_t *items, uint32_t n)
{
    if (n == 0)
        return m->npool;
    if (!grow(m, (void **)&m->pool, &m->cap_pool, m->npool + n, sizeof *m->pool, UINT32_MAX / 8))
        return 0;
    uint32_t off = m->npool;
    memcpy(m->pool + off, items, (size_t)n * sizeof *items);
    m->npool += n;
    return off;
}

uint32_t tir_build(TirModule *m, TirOp op, TirLoc loc, TirType type, const uint32_t *args, uint32_t nargs)
{
    uint32_t i = tir_add_inst(m, op, loc);
    if (!i)
        return 0;
    uint32_t off = tir_pool_push(m, args, nargs);
    if (m->oom)
        return 0;
    TirInst *in = &m->insts[i];
    in->args = off;
    in->nargs = nargs;
    in->type = type;
    if (type.kind != TY_NONE) {
        uint32_t v = tir_add_value(m, type, VAL_RESULT, i, 0, 0);
        if (!v)
            return 0;
        m->insts[i].result = v;
        m->insts[i].nresults = 1;
    }
    return i;
}

uint32_t tir_value_def_inst(const TirModule *m, uint32_t v)
{
    return m->values[v].kind == VAL_RESULT ? m->values[v].def : 0;
}

/* ---- string buffers ---- */

void sb_init(StrBuf *b) { *b = (StrBuf){0}; }
void sb_free(StrBuf *b)
{
    free(b->data);
    *b = (StrBuf){0};
}

static int sb_reserve(StrBuf *b, size_t extra)
{
    if (b->oom)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    char *p = realloc(b->data, ncap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = ncap;
    return 1;
}

void sb_putn(StrBuf *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void sb_puts(StrBuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

void sb_vprintf(StrBuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !sb_reserve(b, (size_t)n))
        return;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sb_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

char *sb_take(StrBuf *b)
{
    char *p = b->data;
    if (!p)
        p = calloc(1, 1);
    *b = (StrBuf){0};
    return p;
}

/* ---- diagnostics ---- */

void diag_init(Diag *d, const char *file, const char *src, size_t srclen)
{
    *d = (Diag){.file = file ? file : "<input>", .src = src, .srclen = srclen, .max_errors = 20};
    sb_init(&d->log);
}

void diag_free(Diag *d) { sb_free(&d->log); }

/* The length of a valid UTF-8 sequence at s (at most n bytes), else 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) || (s[0] == 0xF0 && s[1] < 0x90) ||
        (s[0] == 0xF4 && s[1] > 0x8F)) /* overlong, surrogate, past U+10FFFF */
        return 0;
    uint32_t cp = len == 2 ? (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F)
                  : len == 3 ? (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F)
                             : 0x10000;
    if (cp < 0xA0 || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
        (cp >= 0x2066 && cp <= 0x2069)) /* C1 controls, zero-width and bidi controls: shown as '?' */
        return 0;
    return len;
}

/* Appends the source line of loc and a caret under its column. Valid UTF-8
 * is shown as it is (the caret counts a character as one column), other
 * bytes that are not printable ASCII as '?' (and control characters that
 * UTF-8 can spell: C1, zero-width, bidi), so the log stays plain text; a
 * line's closing CR is not shown. */
static void diag_show_line(Diag *d, TirLoc loc)
{
    if (!d->src || loc.line == 0)
        return;
    size_t i = 0;
    for (uint32_t l = 1; l < loc.line && i < d->srclen; i++)
        if (d->src[i] == '\n')
            l++;
    if (i >= d->srclen && loc.line > 1)
        return;
    size_t end = i;
    while (end < d->srclen && d->src[end] != '\n' && end - i < 200)
        end++;
    if (end > i && d->src[end - 1] == '\r') /* CRLF, or a CR at the end of the file */
        end--;
    const unsigned char *u = (const unsigned char *)d->src;
    sb_puts(&d->log, "  ");
    for (size_t k = i; k < end; k++) {
        size_t n = u[k] >= 0x80 ? utf8_len(u + k, end - k) : 0;
        if (n) {
            sb_putn(&d->log, d->src + k, n);
            k += n - 1;
            continue;
        }
        char ch = (u[k] == '\t' || (u[k] >= 0x20 && u[k] < 0x7f)) ? (char)u[k] : '?';
        sb_putn(&d->log, &ch, 1);
    }
    sb_puts(&d->log, "\n  ");
    size_t stop = i + (loc.col == 0 ? 1 : loc.col < 200 ? loc.col : 200) - 1; /* the caret's byte */
    for (size_t at = i; at < stop; at++) {
        size_t n = at < end && u[at] >= 0x80 ? utf8_len(u + at, end - at) : 0;
        if (n > 1 && at + n <= stop) /* one column for the character */
            at += n - 1;
        char ch = (at < end && u[at] == '\t') ? '\t' : ' ';
        sb_putn(&d->log, &ch, 1);
    }
    sb_puts(&d->log, "^\n");
}

static void diag_report(Diag *d, TirLoc loc, const char *kind, const char *fmt, va_list ap)
{
    if (loc.line)
        sb_printf(&d->log, "%s:%u:%u: %s: ", d->file, loc.line, loc.col, kind);
    else
        sb_printf(&d->log, "%s: %s: ", d->file, kind);
    sb_vprintf(&d->log, fmt, ap);
    sb_puts(&d->log, "\n");
    diag_show_line(d, loc);
}

void diag_error(Diag *d, TirLoc loc, const char *fmt, ...)
{
    d->nerrors++;
    if (d->nerrors > d->max_errors)
        return;
    va_list ap;
    va_start(ap, fmt);
    diag_report(d, loc, "error", fmt, ap);
    va_end(ap);
    if (d->nerrors == d->max_errors)
        sb_puts(&d->log, "note: too many errors; stopping here\n");
}

void diag_note(Diag *d, TirLoc loc, const char *fmt, ...)
{
    if (d->nerrors > d->max_errors)
        return;
    va_list ap;
    va_start(ap, fmt);
    diag_report(d, loc, "note", fmt, ap);
    va_end(ap);
}

void diag_warning(Diag *d, TirLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_report(d, loc, "warning", fmt, ap);
    va_end(ap);
}

void diag_remark(Diag *d, TirLoc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_report(d, loc, "remark", fmt, ap);
    va_end(ap);
}
