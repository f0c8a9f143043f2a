/*
 * The printer: a module in the textual form of docs/TIR.md, which tir_parse
 * reads back to a module that prints the same text (a fixed point).
 *
 * Values print by name. Names are made unique per kernel: the first value
 * (in print order) to use a name keeps it; later ones, values with no name
 * (made by passes) and names with characters the lexer would not take get
 * generated ones (`%name.N`, `%vN`, N the value index), checked against a
 * hash set of the kernel's names. Unnamed constants print inline as literals
 * at their uses (their const instruction is not printed) when the parser
 * would give the literal the constant's type there (tir_literal_type);
 * otherwise they get a generated name and a `const` line.
 *
 * Layout: two spaces per nesting level; `: type` on every tile result and
 * on ops that need it; attributes only when not the default (no precision
 * for PREC_DEFAULT, no padding for +0, no warps(4), grid only when given).
 *
 * Floats print with %.9g of the f32 value (exact for f32 round trips), with
 * inf, -inf, nan; NaNs other than the default one print as their f32 bit
 * pattern in hexadecimal. Numbers print in the C locale.
 *
 * The printer trusts the module only as far as indices go: out-of-range
 * blocks, instructions and values print as placeholders rather than crash,
 * and body nesting is followed at most 256 deep (cycles are cut).
 */
#include "ir.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define CLOSE 0x80000000u /* item: the closing brace of a for's body */
#define MAX_DEPTH 256
enum { INL_DEFAULT, INL_NAMED }; /* how an unnamed const prints: inline unless named */

typedef struct {
    const TirModule *m;
    StrBuf *out;
    int oom;
    uint32_t *pname;  /* per value: arena offset + 1 of its printed name */
    uint8_t *inl;     /* per value: INL_* for unnamed consts */
    uint8_t *visited; /* per block */
    char *arena; size_t narena, cap_arena;
    uint32_t *set; size_t cap_set, nset; /* arena offsets + 1 of this kernel's names */
    uint32_t *items; size_t nitems, cap_items; /* the kernel in print order */
    uint8_t *lit; size_t cap_lit;
} Pr;

static int grow(Pr *r, void **a, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return 1;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*a, nc * sz);
    if (!q)
        return r->oom = 1, 0;
    *a = q, *cap = nc;
    return 1;
}

/* ---- names ---- */

static size_t hash(const char *s)
{
    size_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of name s in the set: where it is, or the empty slot for it. */
static size_t set_slot(Pr *r, const char *s)
{
    size_t i = hash(s) & (r->cap_set - 1);
    while (r->set[i] && strcmp(r->arena + r->set[i] - 1, s) != 0)
        i = (i + 1) & (r->cap_set - 1);
    return i;
}

static int set_has(Pr *r, const char *s) { return r->cap_set && r->set[set_slot(r, s)]; }

/* Copies s into the arena and the set; returns its offset + 1 (0: no memory). */
static uint32_t set_add(Pr *r, const char *s)
{
    size_t n = strlen(s) + 1;
    if ((r->nset + 1) * 2 > r->cap_set) {
        size_t nc = r->cap_set ? r->cap_set * 2 : 1024;
        uint32_t *old = r->set, ocap = (uint32_t)r->cap_set;
        if (!(r->set = calloc(nc, sizeof *r->set)))
            return r->set = old, r->oom = 1, 0;
        r->cap_set = nc;
        for (size_t i = 0; i < ocap; i++)
            if (old[i])
                r->set[set_slot(r, r->arena + old[i] - 1)] = old[i];
        free(old);
    }
    if (r->narena + n > UINT32_MAX - 1 || !grow(r, (void **)&r->arena, &r->cap_arena, r->narena + n, 1))
        return r->oom = 1, 0;
    uint32_t off = (uint32_t)r->narena + 1;
    memcpy(r->arena + r->narena, s, n);
    r->narena += n;
    r->set[set_slot(r, s)] = off;
    r->nset++;
    return off;
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '.'))
            return 0;
    return 1;
}

static int is_unnamed_const(const TirModule *m, uint32_t v)
{
    if (v == 0 || v >= m->nvalues || m->values[v].kind != VAL_RESULT || m->values[v].name)
        return 0;
    uint32_t i = m->values[v].def;
    return i && i < m->ninsts && m->insts[i].op == OP_CONST;
}

static int inline_const(const Pr *r, uint32_t v) { return is_unnamed_const(r->m, v) && r->inl[v] != INL_NAMED; }

/* Keeps the value's own name when it is free (pass 0), or generates one
 * (pass 1) for the values pass 0 left without. */
static void name_value(Pr *r, uint32_t v, int pass)
{
    const TirModule *m = r->m;
    char buf[1100];
    if (v == 0 || v >= m->nvalues || inline_const(r, v))
        return;
    const char *own = m->values[v].name < m->nstrs ? tir_str(m, m->values[v].name) : "";
    if (pass == 0) {
        r->pname[v] = 0;
        if (valid_name(own) && strlen(own) < 1000 && !set_has(r, own))
            r->pname[v] = set_add(r, own);
        return;
    }
    if (r->pname[v])
        return;
    if (valid_name(own) && strlen(own) < 1000)
        snprintf(buf, sizeof buf, "%s.%u", own, v);
    else
        snprintf(buf, sizeof buf, "v%u", v);
    for (size_t n = strlen(buf); set_has(r, buf) && n + 2 < sizeof buf; n += 2)
        memcpy(buf + n, ".1", 3); /* someone took it: extend until free */
    r->pname[v] = set_add(r, buf);
}

/* ---- the kernel in print order ---- */

static void add_item(Pr *r, uint32_t it)
{
    if (grow(r, (void **)&r->items, &r->cap_items, r->nitems + 1, sizeof *r->items))
        r->items[r->nitems++] = it;
}

static int block_ok(const TirModule *m, uint32_t b)
{
    return b && b < m->nblocks && (uint64_t)m->blocks[b].insts + m->blocks[b].ninsts <= m->npool &&
           (uint64_t)m->blocks[b].args + m->blocks[b].nargs <= m->npool;
}

/* An instruction's operands; never pointer arithmetic on a NULL pool (a
 * module with no operands at all has none). */
static const uint32_t *args_of(const TirModule *m, const TirInst *in)
{
    static const uint32_t none[4];
    return in->nargs ? m->pool + in->args : none;
}

static int inst_ok(const TirModule *m, uint32_t i)
{
    return i && i < m->ninsts && m->insts[i].op > OP_NONE && m->insts[i].op < OP_COUNT &&
           (uint64_t)m->insts[i].args + m->insts[i].nargs <= m->npool;
}

/* Lists the instructions of block b and, after each for, its body and a
 * CLOSE item, without recursion. */
static void flatten(Pr *r, uint32_t b)
{
    const TirModule *m = r->m;
    struct { uint32_t b, pos, loop; } st[MAX_DEPTH];
    int sp = 0;
    r->nitems = 0;
    if (!block_ok(m, b))
        return;
    st[0].b = b, st[0].pos = 0, st[0].loop = 0;
    while (sp >= 0) {
        const TirBlock *bl = &m->blocks[st[sp].b];
        if (st[sp].pos >= bl->ninsts) {
            if (st[sp].loop)
                add_item(r, CLOSE | st[sp].loop);
            sp--;
            continue;
        }
        uint32_t i = m->pool[bl->insts + st[sp].pos++];
        if (!inst_ok(m, i))
            continue;
        add_item(r, i);
        uint32_t body = m->insts[i].body;
        if (m->insts[i].op != OP_FOR)
            continue;
        if (sp + 1 < MAX_DEPTH && block_ok(m, body) && !r->visited[body]) {
            r->visited[body] = 1;
            sp++;
            st[sp].b = body, st[sp].pos = 0, st[sp].loop = i;
        } else {
            add_item(r, CLOSE | i);
        }
    }
}

/* Decides which unnamed consts print inline: each use must be a place where
 * the parser types the literal as the const is typed. */
static void decide_inline(Pr *r)
{
    const TirModule *m = r->m;
    uint32_t loops[MAX_DEPTH + 1];
    int depth = 0;
    loops[0] = 0;
    for (size_t t = 0; t < r->nitems; t++) {
        uint32_t i = r->items[t];
        if (i & CLOSE) {
            depth -= depth > 0;
            continue;
        }
        const TirInst *in = &m->insts[i];
        const uint32_t *args = args_of(m, in);
        if (!grow(r, (void **)&r->lit, &r->cap_lit, in->nargs + 1, 1))
            return;
        int any = 0;
        for (uint32_t j = 0; j < in->nargs; j++)
            any |= r->lit[j] = (uint8_t)inline_const(r, args[j]);
        for (int changed = any; changed;) {
            changed = 0;
            for (uint32_t j = 0; j < in->nargs; j++) {
                if (!r->lit[j])
                    continue;
                TirType want = tir_literal_type(m, (TirOp)in->op, args, r->lit, in->nargs, j, in->type, loops[depth]);
                if (!tir_type_eq(want, m->values[args[j]].type) || want.kind != TY_SCALAR) {
                    r->inl[args[j]] = INL_NAMED;
                    for (uint32_t k = 0; k < in->nargs; k++) /* every use of that const in this inst */
                        if (args[k] == args[j])
                            r->lit[k] = 0;
                    changed = 1;
                }
            }
        }
        if (in->op == OP_FOR && depth < MAX_DEPTH)
            loops[++depth] = i;
    }
}

/* ---- text ---- */

static void put(Pr *r, const char *s) { sb_puts(r->out, s); }

/* An f32 value as a literal that lexes as a float. */
static void put_float(Pr *r, double v)
{
    char buf[40];
    float f = (float)v;
    if (isnan(v)) {
        uint32_t bits = tir_f32_bits(v);
        if (bits == 0x7fc00000u)
            snprintf(buf, sizeof buf, "nan");
        else
            snprintf(buf, sizeof buf, "0x%08x", (unsigned)bits);
    } else if (isinf(f)) {
        snprintf(buf, sizeof buf, f < 0 ? "-inf" : "inf");
    } else {
        snprintf(buf, sizeof buf, "%.9g", (double)f);
        if (!strpbrk(buf, ".e"))
            strcat(buf, ".0");
    }
    put(r, buf);
}

/* A value stored as a double (full, padding) for element type e. */
static void put_fval(Pr *r, TirElem e, double v)
{
    if (!tir_elem_is_float(e) && v == trunc(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0)
        sb_printf(r->out, "%lld", (long long)v);
    else
        put_float(r, v);
}

static void put_const(Pr *r, const TirInst *in)
{
    if (tir_elem_is_float((TirElem)in->type.elem))
        put_float(r, in->fval);
    else
        sb_printf(r->out, "%lld", (long long)in->i64);
}

static void put_type(Pr *r, TirType t)
{
    char buf[48];
    put(r, tir_type_str(t, buf, sizeof buf));
}

static void put_val(Pr *r, uint32_t v)
{
    const TirModule *m = r->m;
    if (v && v < m->nvalues && inline_const(r, v))
        put_const(r, &m->insts[m->values[v].def]);
    else if (v && v < m->nvalues && r->pname[v])
        sb_printf(r->out, "%%%s", r->arena + r->pname[v] - 1);
    else
        sb_printf(r->out, "%%invalid.%u", v);
}

static void put_vals(Pr *r, const uint32_t *v, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) {
        if (j)
            put(r, ", ");
        put_val(r, v[j]);
    }
}

static void put_string(Pr *r, const char *s)
{
    put(r, "\"");
    for (; *s; s++) {
        const char *e = *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : NULL;
        if (e)
            put(r, e);
        else
            sb_putn(r->out, s, 1);
    }
    put(r, "\"");
}

static void print_inst(Pr *r, uint32_t i, int depth)
{
    const TirModule *m = r->m;
    const TirInst *in = &m->insts[i];
    const uint32_t *a = args_of(m, in);
    TirOp op = (TirOp)in->op;
    unsigned flags = tir_ops[op].flags;
    if (op == OP_CONST && in->nresults && inline_const(r, in->result))
        return;
    sb_printf(r->out, "%*s", 2 * depth + 2, "");
    if (in->result && in->nresults && (flags & OPF_RESULT || op == OP_FOR)) {
        for (uint32_t k = 0; k < in->nresults; k++) {
            put(r, k ? ", " : "");
            put_val(r, in->result + k);
        }
        put(r, " = ");
    }
    put(r, tir_ops[op].name);
    switch (op) {
    case OP_CONST:
    case OP_FULL:
        put(r, " ");
        if (op == OP_CONST)
            put_const(r, in);
        else
            put_fval(r, (TirElem)in->type.elem, in->fval);
        break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        sb_printf(r->out, " %d", (int)in->ival);
        break;
    case OP_VIEW: {
        uint32_t rank = in->nargs ? (in->nargs - 1) / 2 : 0;
        put(r, " ");
        put_vals(r, a, in->nargs ? 1 : 0);
        put(r, " [");
        put_vals(r, a + 1, rank);
        put(r, "] strides [");
        put_vals(r, a + 1 + rank, in->nargs ? in->nargs - 1 - rank : 0);
        put(r, "]");
        break;
    }
    case OP_LOAD:
    case OP_STORE: {
        uint32_t nv = op == OP_STORE ? 2 : 1;
        put(r, " ");
        put_vals(r, a, in->nargs < nv ? in->nargs : nv);
        put(r, "[");
        put_vals(r, a + nv, in->nargs > nv ? in->nargs - nv : 0);
        put(r, "]");
        double z = 0;
        if (op == OP_LOAD && memcmp(&in->fval, &z, sizeof z) != 0) {
            put(r, " {padding = ");
            put_fval(r, (TirElem)in->type.elem, in->fval);
            put(r, "}");
        }
        break;
    }
    case OP_INLINE_PTX:
        put(r, " ");
        put_string(r, in->str < m->nstrs ? tir_str(m, in->str) : "");
        if (in->nargs)
            put(r, " ");
        put_vals(r, a, in->nargs);
        break;
    case OP_FOR: {
        int has = block_ok(m, in->body) && m->blocks[in->body].nargs;
        const uint32_t *ba = has ? tir_block_args(m, &m->blocks[in->body]) : NULL;
        uint32_t nb = ba ? m->blocks[in->body].nargs : 0;
        put(r, " ");
        if (nb)
            put_val(r, ba[0]);
        put(r, " = ");
        put_vals(r, a, in->nargs ? 1 : 0);
        put(r, " to ");
        put_vals(r, a + 1, in->nargs > 1 ? 1 : 0);
        put(r, " step ");
        put_vals(r, a + 2, in->nargs > 2 ? 1 : 0);
        if (in->nargs > 3) {
            put(r, " iter(");
            for (uint32_t k = 0; k + 3 < in->nargs; k++) {
                put(r, k ? ", " : "");
                put_val(r, 1 + k < nb ? ba[1 + k] : 0);
                put(r, " = ");
                put_val(r, a[3 + k]);
            }
            put(r, ")");
        }
        put(r, " {");
        if (in->ival > 0) /* marked by pass_wgmma; a comment, so it re-parses */
            sb_printf(r->out, " // wgmma pipeline, %d stages", in->ival);
        else if (in->ival < 0) /* marked by pass_mma */
            sb_printf(r->out, " // mma.sync pipeline, %d stages", -in->ival);
        put(r, "\n");
        return;
    }
    default:
        if (in->nargs)
            put(r, " ");
        put_vals(r, a, in->nargs);
        break;
    }
    if (op == OP_DOT && (in->ival != PREC_DEFAULT || (in->i64 & TIR_DOT_ACC_RN))) {
        put(r, " {");
        if (in->ival != PREC_DEFAULT)
            sb_printf(r->out, "precision = %s%s", tir_precision_name((TirPrecision)in->ival),
                      (in->i64 & TIR_DOT_ACC_RN) ? ", " : "");
        if (in->i64 & TIR_DOT_ACC_RN)
            put(r, "accumulate = rn");
        put(r, "}");
    }
    if (op == OP_ROUND_TF32)
        sb_printf(r->out, " {mode = %s}", tir_round_name((TirRound)in->ival));
    if (op == OP_REDUCE_SUM || op == OP_REDUCE_MAX)
        sb_printf(r->out, " {axis = %d}", (int)in->ival);
    if ((flags & OPF_RESULT) && ((flags & OPF_TYPED) || in->type.kind == TY_TILE)) {
        put(r, " : ");
        put_type(r, in->type);
    }
    put(r, "\n");
}

static void print_kernel(Pr *r, uint32_t k)
{
    const TirModule *m = r->m;
    const TirKernel *kn = &m->kernels[k];
    int ok_params = (uint64_t)kn->params + kn->nparams <= m->npool;
    const uint32_t *params = ok_params && kn->nparams ? m->pool + kn->params : NULL;
    flatten(r, kn->body);
    decide_inline(r);
    /* names: parameters, then definitions in print order; a for's results
     * come before its body's arguments, as on its line */
    memset(r->set, 0, r->cap_set * sizeof *r->set);
    r->nset = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t j = 0; ok_params && j < kn->nparams; j++)
            name_value(r, params[j], pass);
        for (size_t t = 0; t < r->nitems; t++) {
            uint32_t i = r->items[t];
            if (i & CLOSE)
                continue;
            const TirInst *in = &m->insts[i];
            for (uint32_t q = 0; q < in->nresults && in->result; q++)
                name_value(r, in->result + q, pass);
            if (in->op == OP_FOR && block_ok(m, in->body))
                for (uint32_t q = 0; q < m->blocks[in->body].nargs; q++)
                    name_value(r, tir_block_args(m, &m->blocks[in->body])[q], pass);
        }
    }
    sb_printf(r->out, "kernel @%s(", kn->name < m->nstrs ? tir_str(m, kn->name) : "invalid");
    for (uint32_t j = 0; ok_params && j < kn->nparams; j++) {
        put(r, j ? ", " : "");
        put_val(r, params[j]);
        put(r, ": ");
        put_type(r, params[j] < m->nvalues ? m->values[params[j]].type : (TirType){0});
    }
    put(r, ")");
    if (kn->grid[0]) {
        sb_printf(r->out, " grid(%u", kn->grid[0]);
        for (int g = 1; g < 3 && kn->grid[g]; g++)
            sb_printf(r->out, ", %u", kn->grid[g]);
        put(r, ")");
    }
    if (kn->warps != 4)
        sb_printf(r->out, " warps(%u)", kn->warps);
    put(r, " {\n");
    int depth = 0;
    for (size_t t = 0; t < r->nitems; t++) {
        uint32_t i = r->items[t];
        if (i & CLOSE) {
            depth -= depth > 0;
            sb_printf(r->out, "%*s}\n", 2 * depth + 2, "");
            continue;
        }
        print_inst(r, i, depth);
        if (m->insts[i].op == OP_FOR)
            depth++;
    }
    put(r, "}\n");
}

void tir_print(const TirModule *m, StrBuf *out)
{
    Pr r = {.m = m, .out = out};
    if (!m || m->oom) {
        sb_puts(out, "// (module is out of memory)\n");
        return;
    }
    r.pname = calloc(m->nvalues + 1, sizeof *r.pname);
    r.inl = calloc(m->nvalues + 1, 1);
    r.visited = calloc(m->nblocks + 1, 1);
    locale_t cl = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = cl ? uselocale(cl) : (locale_t)0;
    if (!r.pname || !r.inl || !r.visited || !set_add(&r, "") /* allocates the set */)
        r.oom = 1;
    for (uint32_t k = 0; k < m->nkernels && !r.oom; k++) {
        if (k)
            put(&r, "\n");
        print_kernel(&r, k);
    }
    if (cl) {
        uselocale(old);
        freelocale(cl);
    }
    if (r.oom)
        out->oom = 1;
    free(r.pname), free(r.inl), free(r.visited), free(r.arena), free(r.set), free(r.items), free(r.lit);
}
