/*
 * The .tir recursive-descent parser (grammar: docs/TIR.md; the lexer is
 * lex.c).
 *
 * Guarantees, for any input bytes: reads only src[0..len) (no NUL needed),
 * never aborts, frees everything it allocates, recurses only through nested
 * for bodies (at most TIR_MAX_NESTING deep; deeper bodies are skipped by a
 * loop, not recursion), and stops after d->max_errors errors.
 *
 * Each instruction is typechecked (tir_check_inst) as soon as it is built, so
 * errors come in source order and point at the op's token. After an error
 * the parser skips to the next statement (a statement-starting token at the
 * start of a line, or a '}' closing the block, skipping balanced braces) and
 * goes on. A statement that failed still defines its names, bound to poison
 * (value 0, or a value of type TY_NONE); uses of poison report nothing, an
 * undefined name is reported once, and after a lexical error the rest of the
 * statement is quiet: one mistake gives one error.
 *
 * Block lists are contiguous in the pool: instructions of open blocks are
 * collected on a scratch stack and pushed when their block closes (inner
 * blocks first). Literal operands become unnamed const instructions placed
 * just before their user, typed by tir_literal_type (typecheck.c).
 *
 * Choices where docs/TIR.md is silent: a hexadecimal literal where a float
 * is expected is the f32 bit pattern (0x7fc00000 is NaN), and where an i32
 * is expected a 32-bit pattern (0xffffffff is -1); float values are rounded
 * to f32 when parsed; attributes may come before or after `: type`; a for
 * needs one name per carried value, and its body ends with a yield even when
 * it carries nothing.
 */
#include "lex.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const TirType NONE_T = {0};

/* ---- errors and memory ---- */

#define FAIL(...) return lex_err(p, __VA_ARGS__), 0

static int grow(P *p, void **a, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap) return 1;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*a, nc * sz);
    if (!q) return lex_oom(p), 0;
    *a = q, *cap = nc;
    return 1;
}

/* ---- names ---- */

static size_t hash(const char *s, size_t n)
{
    size_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

/* The entry of key (s, n), or the empty slot where it would go. */
static Sym *map_slot(Sym *e, size_t cap, const char *s, size_t n)
{
    size_t i = hash(s, n) & (cap - 1);
    while (e[i].s && !(e[i].n == n && memcmp(e[i].s, s, n) == 0))
        i = (i + 1) & (cap - 1);
    return &e[i];
}

static Sym *map_find(Map *mp, const char *s, size_t n)
{
    Sym *e = mp->cap ? map_slot(mp->e, mp->cap, s, n) : NULL;
    return e && e->s ? e : NULL;
}

/* Adds a key known to be absent; the entry is valid until the next add. */
static Sym *map_add(P *p, Map *mp, const char *s, size_t n)
{
    if ((mp->n + 1) * 2 > mp->cap) {
        size_t nc = mp->cap ? mp->cap * 2 : 256;
        Sym *ne = calloc(nc, sizeof *ne);
        if (!ne) return lex_oom(p), NULL;
        for (size_t i = 0; i < mp->cap; i++)
            if (mp->e[i].s)
                *map_slot(ne, nc, mp->e[i].s, mp->e[i].n) = mp->e[i];
        free(mp->e);
        mp->e = ne, mp->cap = nc;
    }
    Sym *e = map_slot(mp->e, mp->cap, s, n);
    mp->n++;
    *e = (Sym){.s = s, .n = n};
    return e;
}

static int same_loc(TirLoc a, TirLoc b) { return a.line == b.line && a.col == b.col; }

/* Declares a name in the current block; NULL after a redefinition error. */
static Sym *define(P *p, const Tok *t, int state)
{
    Sym *s = map_find(&p->syms, t->s, t->n);
    if (s && s->state != S_UNDEF) {
        TirLoc prev = s->loc;
        lex_err(p, t->loc, "redefinition of '%%%.*s'", TXT(t));
        if (!p->stop && !p->lexerr)
            diag_note(p->d, prev, "previous definition of '%%%.*s' is here", TXT(t));
        return NULL;
    }
    if (!s && !(s = map_add(p, &p->syms, t->s, t->n))) return NULL;
    *s = (Sym){.s = t->s, .n = t->n, .scope = p->scope[p->depth], .loc = t->loc, .state = state};
    return s;
}

/* Binds a name this statement declared to its value (0: poison). */
static void bind(P *p, const Tok *t, uint32_t v)
{
    Sym *s = map_find(&p->syms, t->s, t->n);
    if (s && same_loc(s->loc, t->loc) && s->state != S_UNDEF)
        s->val = v, s->state = S_DEF;
}

static uint32_t name_str(P *p, const Tok *t) { return tir_add_string(p->m, t->s, t->n); }

/* The value a use of %name refers to; 0 (poison) after an error. */
static uint32_t use(P *p, const Tok *t)
{
    Sym *s = map_find(&p->syms, t->s, t->n);
    int open = 0;
    for (int i = p->depth; s && i >= 0 && !open; i--)
        open = p->scope[i] == s->scope;
    if (!s) {
        lex_err(p, t->loc, "use of undefined value '%%%.*s'", TXT(t));
        if ((s = map_add(p, &p->syms, t->s, t->n))) /* later uses stay quiet */
            s->state = S_UNDEF, s->loc = t->loc;
    } else if (s->state == S_PENDING)
        lex_err(p, t->loc, "use of '%%%.*s' in its own definition", TXT(t));
    else if (s->state == S_LOOP)
        lex_err(p, t->loc, "use of '%%%.*s' inside the loop that defines it", TXT(t));
    else if (s->state == S_DEF && !open)
        lex_err(p, t->loc, "'%%%.*s' is defined inside a loop body and is not visible here", TXT(t));
    else
        return s->val;
    return 0;
}

static int poisoned(P *p, uint32_t v) { return v == 0 || p->m->values[v].type.kind == TY_NONE; }

/* ---- parser helpers ---- */

static int is(P *p, int kind) { return p->cur.kind == kind; }
static int is_word(P *p, const char *w) { return p->cur.kind == T_WORD && text_is(&p->cur, w); }
/* Where something missing is reported: after the previous token when the
 * current one starts a new line. */
static TirLoc here(P *p) { return p->cur.nl || p->cur.kind == T_EOF ? p->prev_end : p->cur.loc; }

/* Describes the current token; eol: say "end of line" for one that starts
 * a line (the error is then reported after the previous token). */
static const char *got(P *p, char *buf, size_t sz, int eol)
{
    const Tok *t = &p->cur;
    if (t->kind == T_EOF) return "end of input";
    if (t->nl && eol) return "end of line";
    if (t->kind == T_STRING) return "a string";
    snprintf(buf, sz, "'%s%.*s'", t->kind == T_VALUE ? "%" : t->kind == T_KNAME ? "@" : "", TXT(t));
    return buf;
}

static int expect(P *p, int kind, const char *msg)
{
    if (p->cur.kind != kind) FAIL(here(p), "%s", msg);
    lex_next(p);
    return 1;
}

static int stmt_start(P *p)
{
    return is(p, T_VALUE) || is_word(p, "store") || is_word(p, "yield") || is_word(p, "for");
}
static int at_kernel(P *p) { return p->cur.nl && is_word(p, "kernel"); }

/* Skips a balanced {...} group starting at '{' (stops early at a 'kernel'
 * that starts a line, so a missing '}' costs one kernel, not the file). */
static void skip_balanced(P *p)
{
    size_t depth = 0;
    do {
        if (is(p, T_LBRACE) || is(p, T_RBRACE))
            depth = is(p, T_LBRACE) ? depth + 1 : depth - 1;
        lex_next(p);
    } while (depth && !is(p, T_EOF) && !p->stop && !at_kernel(p));
}

/* After an error: skip to a statement start on a new line or a '}' that
 * closes the current block, skipping balanced braces on the way. A '}'
 * inside a line with no '{' before it on that line is taken for a stray
 * one (`round_tf32 %x mode = rna}`), not the end of the block. */
static void resync(P *p)
{
    size_t depth = 0;
    for (; !is(p, T_EOF) && !p->stop && !at_kernel(p); lex_next(p)) {
        if (depth == 0 && p->cur.nl && stmt_start(p)) return;
        if (is(p, T_LBRACE))
            depth++;
        else if (is(p, T_RBRACE) && depth)
            depth--;
        else if (is(p, T_RBRACE) && (p->cur.nl || p->lbrace >= 0)) return;
    }
}

/* Is this %name the start of the next statement (`%a =`, `%a, %b =`)?
 * Looks ahead without reporting anything, then rewinds. */
static int looks_like_def(P *p)
{
    P save = *p;
    int r = 0;
    p->quiet = 1;
    while (is(p, T_VALUE)) {
        lex_next(p);
        if ((r = is(p, T_EQ)) || !is(p, T_COMMA)) break;
        lex_next(p);
    }
    save.str = p->str; /* the only state lexing may have reallocated */
    *p = save;
    return r;
}

static int operand_start(P *p)
{
    return is(p, T_INT) || is(p, T_FLOAT) || (is(p, T_VALUE) && !(p->cur.nl && looks_like_def(p)));
}

static int parse_operand(P *p)
{
    char buf[64];
    Opnd o = {.t = p->cur};
    if (is(p, T_VALUE))
        o.v = use(p, &p->cur);
    else if (is(p, T_INT) || is(p, T_FLOAT))
        o.lit = 1;
    else
        FAIL(here(p), "expected an operand (a %%name or a number), got %s", got(p, buf, sizeof buf, 1));
    if (!grow(p, (void **)&p->ops, &p->cap_ops, p->nops + 1, sizeof *p->ops)) return 0;
    p->ops[p->nops++] = o;
    lex_next(p);
    return 1;
}

static int parse_operands(P *p)
{
    char buf[64];
    if (!parse_operand(p)) return 0;
    while (is(p, T_COMMA)) {
        lex_next(p);
        if (p->cur.nl && is(p, T_VALUE) && looks_like_def(p)) /* the next statement: one is missing */
            FAIL(here(p), "expected an operand after ',', got %s", got(p, buf, sizeof buf, 1));
        if (!parse_operand(p)) return 0;
    }
    /* `add %a %b`: a missing comma, unless a statement starts there */
    if ((is(p, T_INT) || is(p, T_FLOAT) || is(p, T_VALUE)) && !p->cur.nl && !(is(p, T_VALUE) && looks_like_def(p)))
        FAIL(p->prev_end, "expected ',' between operands");
    return 1;
}

/* '[' operands ']' */
static int parse_index(P *p, const char *open_msg, const char *close_msg)
{
    return expect(p, T_LBRACK, open_msg) && parse_operands(p) && expect(p, T_RBRACK, close_msg);
}

/* ---- types ---- */

static TirElem elem_lookup(const char *s, size_t n)
{
    for (int e = ELEM_I32; e <= ELEM_F32; e++)
        if (strlen(tir_elem_name((TirElem)e)) == n && memcmp(tir_elem_name((TirElem)e), s, n) == 0) return (TirElem)e;
    return ELEM_NONE;
}

/* tile<RxCxE>: the tokens inside <> are glued back together, so that both
 * `64x64xf32` and `64 x 64 x f32` read the same. */
static int parse_tile(P *p, TirType *t)
{
    char spec[72];
    size_t n = 0;
    TirLoc loc = p->cur.loc;
    for (; (is(p, T_INT) || is(p, T_WORD)) && n + p->cur.n < 64; lex_next(p))
        memcpy(spec + n, p->cur.s, p->cur.n), n += p->cur.n;
    spec[n] = 0;
    if (!expect(p, T_GT, "expected '>' to close the tile type")) return 0;
    uint64_t dim[2] = {0, 0};
    const char *s = spec, *ds[2];
    int dn[2];
    for (int k = 0; k < 2; k++) {
        const char *s0 = ds[k] = s;
        for (; is_digit(*s); s++) /* saturates: beyond 1e8 only "too big" matters */
            dim[k] = dim[k] < 100000000 ? dim[k] * 10 + (uint64_t)(*s - '0') : dim[k];
        dn[k] = (int)(s - s0);
        if (s == s0 || *s++ != 'x')
            return lex_err(p, loc, "malformed tile type 'tile<%s>'; expected tile<ROWSxCOLSxELEM>, "
                           "e.g. tile<64x64xf32>", spec), 1;
    }
    TirElem e = elem_lookup(s, strlen(s));
    if (!e) return lex_err(p, loc, "unknown element type '%s'", s), 1;
    for (int k = 0; k < 2; k++) { /* the dimension as written, not a saturated value */
        if (dim[k] < 100000000 && (dim[k] == 0 || (dim[k] & (dim[k] - 1))))
            return lex_err(p, loc, "tile dimension %.*s is not a power of two", dn[k], ds[k]), 1;
        if (dim[k] > TIR_MAX_TILE_DIM)
            return lex_err(p, loc, "tile dimension %.*s exceeds %u", dn[k], ds[k], TIR_MAX_TILE_DIM), 1;
    }
    if (dim[0] * dim[1] > TIR_MAX_TILE_ELEMS)
        return lex_err(p, loc, "tile<%s> has %llu elements; at most %u are allowed", spec,
                       (unsigned long long)(dim[0] * dim[1]), TIR_MAX_TILE_ELEMS), 1;
    *t = tir_tile(e, (uint32_t)dim[0], (uint32_t)dim[1]);
    return 1;
}

/* Returns 0 on a syntax error; 1 when a type was read, with *t = TY_NONE
 * if it was invalid (reported). */
static int parse_type(P *p, TirType *t)
{
    char buf[64];
    Tok w = p->cur;
    *t = NONE_T;
    if (!is(p, T_WORD) || p->cur.nl) FAIL(here(p), "expected a type, got %s", got(p, buf, sizeof buf, 1));
    lex_next(p);
    TirElem e = elem_lookup(w.s, w.n);
    if (e == ELEM_I32 || e == ELEM_I64 || e == ELEM_F32) return *t = tir_scalar(e), 1;
    if (e)
        return lex_err(p, w.loc, "'%.*s' is not a scalar type (scalars are i32, i64 and f32; use a tile)", TXT(&w)), 1;
    if (text_is(&w, "tile")) return expect(p, T_LT, "expected '<' after 'tile'") && parse_tile(p, t);
    if (text_is(&w, "ptr")) {
        if (!expect(p, T_LT, "expected '<' after 'ptr'")) return 0;
        Tok el = p->cur;
        if (!is(p, T_WORD)) FAIL(here(p), "expected an element type after 'ptr<'");
        lex_next(p);
        if (!expect(p, T_GT, "expected '>' after the element type")) return 0;
        if (!(e = elem_lookup(el.s, el.n))) return lex_err(p, el.loc, "unknown element type '%.*s'", TXT(&el)), 1;
        return *t = (TirType){.kind = TY_PTR, .elem = (uint8_t)e}, 1;
    }
    if (text_is(&w, "view"))
        lex_err(p, w.loc, "view types cannot be written; a view gets its type from its 'view' op");
    else
        lex_err(p, w.loc, "unknown type '%.*s'", TXT(&w));
    if (is(p, T_LT)) /* skip a parameter list such as tiel<64x64xf32> */
        while (!is(p, T_EOF) && !is(p, T_GT) && !p->cur.nl)
            lex_next(p);
    if (is(p, T_GT))
        lex_next(p);
    return 1;
}

/* ---- building instructions ---- */

static void push_inst(P *p, uint32_t i)
{
    if (grow(p, (void **)&p->insts, &p->cap_insts, p->ninsts + 1, sizeof *p->insts))
        p->insts[p->ninsts++] = i;
}

static uint32_t new_inst(P *p, TirOp op, TirLoc loc, const uint32_t *args, uint32_t n)
{
    if (p->m->ninsts + 1 > TIR_MAX_INSTS) {
        lex_err(p, loc, "too many instructions (the limit is %u; each literal operand counts as one)",
                TIR_MAX_INSTS);
        return p->stop = 1, 0;
    }
    uint32_t i = tir_build(p->m, op, loc, NONE_T, args, n);
    if (!i || p->m->oom) return lex_oom(p), 0;
    return i;
}

/* Turns the operands in p->ops into value indices in p->args, emitting a
 * const for each literal. Returns 1, 0 after an error, -1 when an operand is
 * poison (nothing reported). */
static int resolve(P *p, TirOp op, TirType written, uint32_t loop)
{
    TirModule *m = p->m;
    size_t n = p->nops;
    uint8_t *lit;
    if (!grow(p, (void **)&p->args, &p->cap_args, n + 1, sizeof *p->args)) return 0;
    if (!(lit = realloc(p->islit, p->cap_args))) return lex_oom(p), 0;
    p->islit = lit;
    int pois = 0;
    for (size_t j = 0; j < n; j++) {
        lit[j] = p->ops[j].lit, p->args[j] = p->ops[j].v;
        pois |= !lit[j] && poisoned(p, p->ops[j].v);
    }
    if (pois) return -1;
    /* all literal types first, then the consts: each literal sees the
     * others as literals, as the printer does when it inlines them */
    for (size_t j = 0; j < n; j++) {
        TirType t = lit[j] ? tir_literal_type(m, op, p->args, lit, (uint32_t)n, (uint32_t)j, written, loop) : NONE_T;
        const char *half = NULL;
        for (size_t k = 0; k < n && lit[j] && !t.kind; k++) {
            TirElem e = lit[k] ? ELEM_NONE : (TirElem)m->values[p->args[k]].type.elem;
            half = (tir_ops[op].flags & OPF_EWISE) && (e == ELEM_F16 || e == ELEM_BF16) ? tir_elem_name(e) : half;
        }
        if (lit[j] && !t.kind && half)
            FAIL(p->ops[j].t.loc, "%s: a literal cannot be combined with %s elements (there are no %s scalars); use "
                 "full or splat", tir_ops[op].name, half, half);
        if (lit[j] && !t.kind && op == OP_SPLAT && written.kind && written.kind != TY_TILE)
            FAIL(p->ops[j].t.loc, "splat: the result must be a tile (': tile<RxCxT>'), got %s",
                 tir_type_str(written, (char[64]){0}, 64));
        if (lit[j] && !t.kind)
            FAIL(p->ops[j].t.loc, "%s: cannot tell the type of literal '%.*s' here; define it with 'const'",
                 tir_ops[op].name, TXT(&p->ops[j].t));
        if (lit[j])
            p->args[j] = (uint32_t)t.elem; /* stash; turned into a value below */
    }
    for (size_t j = 0; j < n; j++) {
        TirType t = tir_scalar((TirElem)p->args[j]);
        int64_t iv;
        double fv;
        uint32_t i, v;
        if (!lit[j]) continue;
        if (!lex_lit_value(p, &p->ops[j].t, (TirElem)t.elem, &iv, &fv) ||
            !(i = new_inst(p, OP_CONST, p->ops[j].t.loc, NULL, 0)))
            return 0;
        m->insts[i].type = t, m->insts[i].i64 = iv, m->insts[i].fval = tir_elem_is_float((TirElem)t.elem) ? fv : 0;
        if (!(v = tir_add_value(m, t, VAL_RESULT, i, 0, 0))) return lex_oom(p), 0;
        m->insts[i].result = v, m->insts[i].nresults = 1;
        push_inst(p, i);
        p->args[j] = v;
    }
    return 1;
}

/* Typechecks instruction i (unless its operands are poison or its statement
 * had an error), creates its result value, binds the name, adds it to the
 * block. */
static void finish(P *p, uint32_t i, int ok, const Tok *name)
{
    TirModule *m = p->m;
    TirType r = NONE_T;
    uint32_t v = 0;
    if (ok && !p->bad && tir_check_inst(m, i, &r, p->d))
        r = NONE_T, p->bad = 1;
    p->stop |= p->d->nerrors >= p->limit;
    if (tir_ops[m->insts[i].op].flags & OPF_RESULT) {
        m->insts[i].type = r;
        if (r.kind != TY_NONE && name) {
            if (!(v = tir_add_value(m, r, VAL_RESULT, i, 0, name_str(p, name)))) return lex_oom(p);
            m->insts[i].result = v, m->insts[i].nresults = 1;
        }
        if (name)
            bind(p, name, v);
    }
    push_inst(p, i);
}

/* ---- statements ---- */

/* '{' name = value, ... '}'. After an error, skips to the '}' on the same
 * line, so that resync does not take it for the end of the block. */
static int parse_attrs(P *p, Attr *a, int *na)
{
    int over = 0; /* "too many" said once, at the first past the limit */
    for (lex_next(p);; lex_next(p)) {
        Attr x = {.name = p->cur};
        if (!is(p, T_WORD)) {
            lex_err(p, here(p), "expected an attribute name");
            break;
        }
        lex_next(p);
        if (!expect(p, T_EQ, "expected '=' after the attribute name")) break;
        if (!is(p, T_WORD) && !is(p, T_INT) && !is(p, T_FLOAT)) {
            lex_err(p, here(p), "expected an attribute value");
            break;
        }
        x.val = p->cur;
        lex_next(p);
        for (int j = 0; j < *na; j++)
            if (a[j].name.n == x.name.n && !memcmp(a[j].name.s, x.name.s, x.name.n))
                lex_err(p, x.name.loc, "duplicate attribute '%.*s'", TXT(&x.name));
        if (*na == 4) {
            if (!over++)
                lex_err(p, x.name.loc, "too many attributes (an op takes at most 4)");
        } else
            a[(*na)++] = x;
        if (is(p, T_COMMA)) continue;
        if (expect(p, T_RBRACE, "expected ',' or '}' after the attribute")) return 1;
        break;
    }
    while (!is(p, T_EOF) && !p->cur.nl && !is(p, T_RBRACE))
        lex_next(p);
    if (is(p, T_RBRACE) && !p->cur.nl)
        lex_next(p);
    return 0;
}

/* Applies the attributes of op: ival (precision, mode, axis) and the
 * padding; *have: a required attribute was given. */
static void apply_attrs(P *p, TirOp op, const Attr *at, int na, TirType w, int32_t *ival, int64_t *flags,
                        double *fval, int *have)
{
    const char *opn = tir_ops[op].name;
    for (int j = 0; j < na; j++) {
        const Tok *an = &at[j].name, *av = &at[j].val;
        int v = -1;
        if (op == OP_DOT && text_is(an, "precision")) {
            if (av->kind != T_WORD || !(v = (int)tir_precision_lookup(av->s, av->n)))
                lex_err(p, av->loc, "unknown precision '%.*s'; expected ieee, tf32-trunc, tf32-rna, tf32-rne or 3xtf32",
                        TXT(av)), v = -1;
        } else if (op == OP_DOT && text_is(an, "accumulate")) {
            if (av->kind != T_WORD || !text_is(av, "rn"))
                lex_err(p, av->loc, "unknown accumulation '%.*s'; expected rn", TXT(av));
            else
                *flags |= TIR_DOT_ACC_RN;
        } else if (op == OP_ROUND_TF32 && text_is(an, "mode")) {
            if (av->kind != T_WORD || (v = tir_round_lookup(av->s, av->n)) < 0)
                lex_err(p, av->loc, "unknown rounding mode '%.*s'; expected trunc, rna or rne", TXT(av)), v = -1;
        } else if ((op == OP_REDUCE_SUM || op == OP_REDUCE_MAX) && text_is(an, "axis")) {
            if (av->kind != T_INT || av->i < 0 || av->i > 1)
                lex_err(p, av->loc, "%s: axis must be 0 or 1, got '%.*s'", opn, TXT(av));
            else
                v = (int)av->i;
        } else if (op == OP_LOAD && text_is(an, "padding")) {
            if (av->kind != T_INT && av->kind != T_FLOAT)
                lex_err(p, av->loc, "load: padding must be a number, got '%.*s'", TXT(av));
            else if (w.kind == TY_TILE)
                lex_lit_fval(p, av, (TirElem)w.elem, fval);
        } else {
            lex_err(p, an->loc, "unknown attribute '%.*s' for %s", TXT(an), opn);
        }
        if (v >= 0)
            *ival = v, *have = 1;
    }
}

/* '%name = op ...' for every op but for. */
static int parse_op(P *p, const Tok *name)
{
    char buf[64];
    Tok optok = p->cur, num = {0};
    Attr at[4];
    int na = 0, have = 0;
    int32_t ival = 0;
    uint32_t str = 0, i;
    int64_t iv = 0;
    double fval = 0;
    TirType w = NONE_T;
    TirOp op = is(p, T_WORD) ? tir_op_lookup(p->cur.s, p->cur.n) : OP_NONE;
    const char *opn = tir_ops[op].name;
    if (!is(p, T_WORD)) FAIL(here(p), "expected an operation after '=', got %s", got(p, buf, sizeof buf, 1));
    if (op == OP_NONE) FAIL(optok.loc, "unknown operation '%.*s'", TXT(&optok));
    if (!(tir_ops[op].flags & OPF_RESULT)) FAIL(optok.loc, "'%s' does not produce a value", opn);
    lex_next(p);
    p->nops = 0;
    if (op == OP_CONST || op == OP_FULL) {
        if (!is(p, T_INT) && !is(p, T_FLOAT))
            FAIL(here(p), "%s needs a number, e.g. '%s 1.0 : %s'", opn, opn, op == OP_CONST ? "f32" : "tile<4x4xf32>");
        num = p->cur;
        lex_next(p);
    } else if (op == OP_PROGRAM_ID || op == OP_NUM_PROGRAMS) {
        if (!is(p, T_INT)) FAIL(here(p), "%s needs an axis: 0, 1 or 2", opn);
        if (p->cur.i < 0 || p->cur.i > 2)
            lex_err(p, p->cur.loc, "%s: axis must be 0, 1 or 2, got %.*s", opn, TXT(&p->cur));
        ival = (int32_t)p->cur.i;
        lex_next(p);
    } else if (op == OP_VIEW) {
        TirLoc lb = {0, 0}, sl;
        if (!parse_operand(p) || (lb = p->cur.loc, 0) ||
            !parse_index(p, "expected '[' and the extents after the view's pointer", "expected ']' after the extents"))
            return 0;
        size_t nd = p->nops - 1;
        if (sl = p->cur.loc, !is_word(p, "strides")) FAIL(here(p), "expected 'strides' after the extents");
        lex_next(p);
        if (!parse_index(p, "expected '[' after 'strides'", "expected ']' after the strides")) return 0;
        if (p->nops - 1 - nd != nd)
            lex_err(p, sl, "view: %zu extents but %zu strides", nd, p->nops - 1 - nd);
        else if (nd != 2 && nd != 3)
            lex_err(p, lb, "view: rank must be 2 or 3, got %zu", nd);
        ival = (int32_t)nd;
    } else if (op == OP_LOAD) {
        if (!parse_operand(p) || !parse_index(p, "expected '[' and indices after the view", "expected ']' after index"))
            return 0;
        if (is(p, T_LBRACK)) FAIL(here(p), "load takes one index list, [i, j] (not [i][j])");
    } else if (op == OP_INLINE_PTX) {
        if (!is(p, T_STRING)) FAIL(here(p), "inline_ptx needs a PTX template string");
        str = tir_add_string(p->m, p->str.data ? p->str.data : "", p->str.len);
        lex_next(p);
        if (operand_start(p) && !parse_operands(p)) return 0;
    } else if (tir_ops[op].nargs != 0 && is(p, T_LPAREN)) {
        FAIL(here(p), "%s takes its operands without parentheses: '%%x = %s %%a%s'", opn, opn,
             tir_ops[op].nargs > 2 ? ", %b, %c" : tir_ops[op].nargs > 1 ? ", %b" : "");
    } else if (tir_ops[op].nargs != 0 && operand_start(p) && !parse_operands(p)) {
        return 0;
    }
    if (is(p, T_LBRACE) && !parse_attrs(p, at, &na)) return 0;
    if (is(p, T_COLON)) {
        lex_next(p);
        if (!parse_type(p, &w)) return 0;
        p->bad |= w.kind == TY_NONE;
    } else if (tir_ops[op].flags & OPF_TYPED) {
        FAIL(here(p), "%s needs a result type (': type')", opn);
    }
    if (is(p, T_LBRACE) && !parse_attrs(p, at, &na)) /* docs/TIR.md shows both places */
        return 0;
    apply_attrs(p, op, at, na, w, &ival, &iv, &fval, &have);
    if (op == OP_ROUND_TF32 && !have && !p->bad)
        lex_err(p, optok.loc, "round_tf32 needs a rounding mode: {mode = rna}, {mode = rne} or {mode = trunc}");
    if ((op == OP_REDUCE_SUM || op == OP_REDUCE_MAX) && !have && !p->bad)
        lex_err(p, optok.loc, "%s needs an axis: {axis = 0} or {axis = 1}", opn);
    if (op == OP_CONST && w.kind == TY_SCALAR)
        lex_lit_value(p, &num, (TirElem)w.elem, &iv, &fval);
    if (op == OP_FULL && w.kind == TY_TILE)
        lex_lit_fval(p, &num, (TirElem)w.elem, &fval);
    int r = resolve(p, op, w, 0);
    if (r == 0 || !(i = new_inst(p, op, optok.loc, p->args, (uint32_t)p->nops)))
        return 1; /* reported; the statement was read to its end */
    TirInst *in = &p->m->insts[i];
    in->type = w, in->ival = ival, in->i64 = iv, in->fval = fval, in->str = str;
    finish(p, i, r == 1, name);
    return 1;
}

/* store and yield: no result. */
static int parse_effect(P *p, TirOp op)
{
    TirLoc loc = p->cur.loc;
    uint32_t loop = p->loop[p->depth], i;
    lex_next(p);
    p->nops = 0;
    if (op == OP_STORE &&
        (!parse_operand(p) || !expect(p, T_COMMA, "expected ',' after the stored tile") || !parse_operand(p) ||
         !parse_index(p, "expected '[' and indices after the view", "expected ']' after index")))
        return 0;
    if (op == OP_YIELD && operand_start(p) && !parse_operands(p)) return 0;
    if (op == OP_YIELD && !loop) return lex_err(p, loc, "'yield' outside a loop body"), 1;
    int r = resolve(p, op, NONE_T, loop);
    if (r == 1 && op == OP_YIELD) { /* the loop's carried types: the verifier's rule, at the yield */
        const TirInst *f = &p->m->insts[loop];
        uint32_t ncarry = f->nargs - 3;
        if (p->nops != ncarry)
            lex_err(p, loc, "yield gives %zu value%s but the loop carries %u", p->nops, p->nops == 1 ? "" : "s",
                    ncarry);
        for (uint32_t k = 0; k < ncarry && p->nops == ncarry && !p->bad; k++) {
            TirType want = p->m->values[p->m->pool[f->args + 3 + k]].type, have = p->m->values[p->args[k]].type;
            char b1[48], b2[48];
            if (want.kind != TY_NONE && !tir_type_eq(want, have))
                lex_err(p, loc, "yield: value %u has type %s but the loop carries %s", k + 1,
                        tir_type_str(have, b1, sizeof b1), tir_type_str(want, b2, sizeof b2));
        }
    }
    if (r && (i = new_inst(p, op, loc, p->args, (uint32_t)p->nops)))
        finish(p, i, r == 1, NULL);
    return 1;
}

static int parse_block(P *p, uint32_t block, uint32_t loop, int brace);

/* [names '='] 'for' %i = lo to hi step s [iter(%c = init, ...)] { body } */
static int parse_for(P *p, size_t nbase, size_t nnames)
{
    TirModule *m = p->m;
    TirLoc floc = p->cur.loc;
    lex_next(p);
    p->nops = 0;
    Tok iv = p->cur;
    if (!is(p, T_VALUE)) FAIL(here(p), "expected the induction variable ('%%i') after 'for'");
    lex_next(p);
    if (!expect(p, T_EQ, "expected '=' after the induction variable") || !parse_operand(p)) return 0;
    if (!is_word(p, "to")) FAIL(here(p), "expected 'to' after the lower bound");
    lex_next(p);
    if (!parse_operand(p)) return 0;
    if (!is_word(p, "step")) FAIL(here(p), "expected 'step' after the upper bound");
    lex_next(p);
    if (!parse_operand(p)) return 0;
    size_t ibase = p->nnames;
    if (is_word(p, "iter")) {
        lex_next(p);
        if (!expect(p, T_LPAREN, "expected '(' after 'iter'"))
            return 0;
        do {
            if (!is(p, T_VALUE)) FAIL(here(p), "expected a carried value ('%%name = init')");
            if (!grow(p, (void **)&p->names, &p->cap_names, p->nnames + 1, sizeof *p->names)) return 0;
            p->names[p->nnames++] = p->cur;
            lex_next(p);
            if (!expect(p, T_EQ, "expected '=' and an initial value after the carried value's name") ||
                !parse_operand(p))
                return 0;
        } while (is(p, T_COMMA) && (lex_next(p), 1));
        if (!expect(p, T_RPAREN, "expected ',' or ')' after the carried value"))
            return 0;
    }
    int brace = is(p, T_LBRACE);
    if (!brace) { /* a forgotten '{' before the body's first line: read on */
        lex_err(p, here(p), "expected '{' to start the loop body");
        if (!(p->cur.nl && stmt_start(p))) return 0;
    }
    uint32_t ncarry = (uint32_t)(p->nops - 3);
    if (nnames != ncarry)
        lex_err(p, nnames ? p->names[nbase].loc : floc, "for carries %u value%s but %zu name%s given", ncarry,
                ncarry == 1 ? "" : "s", nnames, nnames == 1 ? " is" : "s are");
    int r = p->depth >= TIR_MAX_NESTING ? 0 : resolve(p, OP_FOR, NONE_T, 0);
    if (p->depth >= TIR_MAX_NESTING)
        lex_err(p, floc, "loops are nested more than %d deep", TIR_MAX_NESTING);
    if (r == 0) { /* too deep, or a literal init: skip the body rather than guess */
        if (brace)
            skip_balanced(p);
        return brace;
    }
    uint32_t i = new_inst(p, OP_FOR, floc, p->args, (uint32_t)p->nops), block = i ? tir_add_block(m) : 0;
    if (!block) return lex_oom(p), 1;
    m->blocks[block].parent = i, m->insts[i].body = block;
    /* body arguments (p->args is free: the operands are in the pool), then
     * the results: consecutive values of the carried types */
    uint32_t *ba = p->args, first = 0;
    ba[0] = tir_add_value(m, tir_scalar(ELEM_I32), VAL_BLOCK_ARG, block, 0, name_str(p, &iv));
    for (uint32_t k = 0; k < ncarry; k++) {
        TirType t = m->values[m->pool[m->insts[i].args + 3 + k]].type;
        ba[1 + k] = tir_add_value(m, t, VAL_BLOCK_ARG, block, 1 + k, name_str(p, &p->names[ibase + k]));
    }
    m->blocks[block].args = tir_pool_push(m, ba, ncarry + 1), m->blocks[block].nargs = ncarry + 1;
    for (uint32_t k = 0; k < ncarry; k++) {
        uint32_t v = tir_add_value(m, m->values[m->pool[m->insts[i].args + 3 + k]].type, VAL_RESULT, i, k, 0);
        first = k ? first : v;
    }
    if (m->oom) return lex_oom(p), 1;
    m->insts[i].result = first, m->insts[i].nresults = ncarry;
    TirType ignored;
    if (r == 1 && !p->bad)
        tir_check_inst(m, i, &ignored, p->d); /* the header; the body is empty yet */
    p->stop |= p->d->nerrors >= p->limit;
    push_inst(p, i);
    /* the body: its own scope with the induction variable and carried values */
    p->depth++;
    p->scope[p->depth] = block, p->loop[p->depth] = i;
    for (uint32_t k = 0; k <= ncarry; k++) {
        const Tok *t = k ? &p->names[ibase + k - 1] : &iv;
        if (define(p, t, S_DEF))
            bind(p, t, tir_block_args(m, &m->blocks[block])[k]);
    }
    parse_block(p, block, i, brace);
    p->depth--;
    for (uint32_t k = 0; k < ncarry && nnames == ncarry; k++) {
        m->values[first + k].name = name_str(p, &p->names[nbase + k]);
        bind(p, &p->names[nbase + k], first + k);
    }
    p->nnames = ibase;
    return 1;
}

/* One statement. Returns 0 after a syntax error (the caller resyncs). */
static int parse_stmt(P *p, int *yielded)
{
    char buf[64];
    size_t nbase = p->nnames, nn = 0;
    int ok = 0;
    p->bad = p->lexerr = 0;
    if (is(p, T_VALUE)) {
        int eq = 1;
        for (;; lex_next(p)) {
            if (!is(p, T_VALUE)) {
                lex_err(p, here(p), "expected a name after ','"), eq = 0;
                break;
            }
            if (!grow(p, (void **)&p->names, &p->cap_names, p->nnames + 1, sizeof *p->names)) return 0;
            p->names[p->nnames++] = p->cur, nn++;
            lex_next(p);
            if (!is(p, T_COMMA)) break;
        }
        eq = eq && expect(p, T_EQ, nn > 1 ? "expected '=' after the names" : "expected '=' after the name");
        for (size_t k = 0; k < nn; k++) { /* without '=', only declare names quietly (poison) */
            const Tok *t = &p->names[nbase + k];
            if (eq || !map_find(&p->syms, t->s, t->n))
                define(p, t, is_word(p, "for") ? S_LOOP : S_PENDING);
        }
        if (eq && nn > 1 && !is_word(p, "for"))
            lex_err(p, p->names[nbase + 1].loc, "only 'for' defines several values");
        if (eq)
            ok = is_word(p, "for") ? parse_for(p, nbase, nn) : parse_op(p, &p->names[nbase]);
    } else if (is_word(p, "store") || is_word(p, "yield")) {
        *yielded = is_word(p, "yield");
        ok = parse_effect(p, *yielded ? OP_YIELD : OP_STORE);
    } else if (is_word(p, "for")) {
        ok = parse_for(p, nbase, 0);
    } else if (is(p, T_WORD) && tir_op_lookup(p->cur.s, p->cur.n)) {
        lex_err(p, p->cur.loc, "'%.*s' produces a value; write '%%name = %.*s ...'", TXT(&p->cur), TXT(&p->cur));
    } else {
        lex_err(p, p->cur.loc, "expected a statement, got %s", got(p, buf, sizeof buf, 0));
    }
    for (size_t k = 0; k < nn; k++) { /* names whose statement failed: poison */
        Sym *s = map_find(&p->syms, p->names[nbase + k].s, p->names[nbase + k].n);
        if (s && (s->state == S_PENDING || s->state == S_LOOP) && same_loc(s->loc, p->names[nbase + k].loc))
            s->state = S_DEF, s->val = 0;
    }
    p->nnames = nbase;
    return ok;
}

/* '{' stmt* '}' into block; loop is the owning for (0: kernel body);
 * brace: the '{' is there (else it was reported missing). */
static int parse_block(P *p, uint32_t block, uint32_t loop, int brace)
{
    char buf[64];
    TirLoc open = p->cur.loc;
    size_t base = p->ninsts;
    int yielded = 0, after = 0, closed = 0;
    if (brace)
        lex_next(p);
    while (!p->stop) {
        if (is(p, T_RBRACE)) {
            if (loop && !yielded)
                lex_err(p, p->cur.loc, "a loop body must end with 'yield'");
            lex_next(p);
            closed = 1;
            break;
        }
        if (is(p, T_EOF) || at_kernel(p)) {
            if (!p->eof_reported)
                lex_err(p, here(p), "expected '}' to close the block opened at %u:%u", open.line, open.col);
            p->eof_reported = 1;
            break;
        }
        if (yielded && !after)
            lex_err(p, p->cur.loc, "'yield' must be the last statement of a loop body"), after = 1;
        unsigned long t0 = p->ntok;
        int y = 0;
        if (!parse_stmt(p, &y)) {
            resync(p);
        } else if (!is(p, T_EOF) && !is(p, T_RBRACE) && !stmt_start(p) && !is_word(p, "kernel")) {
            if (!p->bad) /* else the statement's own error explains it */
                lex_err(p, p->cur.loc, "expected the end of the statement, got %s", got(p, buf, sizeof buf, 0));
            resync(p);
        }
        yielded |= y;
        if (p->ntok == t0 && !p->stop) /* always make progress */
            lex_next(p);
    }
    size_t n = p->ninsts - base;
    p->m->blocks[block].insts = tir_pool_push(p->m, n ? p->insts + base : NULL, (uint32_t)n);
    p->m->blocks[block].ninsts = (uint32_t)n;
    p->ninsts = base;
    if (p->m->oom)
        lex_oom(p);
    return closed;
}

/* ---- kernels ---- */

/* After an error in a kernel's header: skip its body. */
static void skip_kernel(P *p)
{
    for (; !is(p, T_EOF) && !p->stop && !at_kernel(p); lex_next(p))
        if (is(p, T_LBRACE)) return skip_balanced(p);
}

/* grid(x[, y[, z]]) or warps(n) */
static int kernel_attr(P *p, TirKernel *k, int *seen)
{
    char buf[64];
    int grid = is_word(p, "grid");
    if (!grid && !is_word(p, "warps"))
        FAIL(here(p), "expected '{' or a kernel attribute (grid(...) or warps(...)), got %s",
             got(p, buf, sizeof buf, 1));
    if (seen[grid]++) FAIL(p->cur.loc, "duplicate %s attribute", grid ? "grid" : "warps");
    lex_next(p);
    if (!expect(p, T_LPAREN, "expected '('"))
        return 0;
    for (int n = 0;; n++) {
        Tok t = p->cur;
        if (!is(p, T_INT)) FAIL(here(p), "expected an integer");
        lex_next(p);
        if (grid && (t.i < 1 || t.i > 2147483647))
            lex_err(p, t.loc, "grid size must be between 1 and 2147483647, got %.*s", TXT(&t));
        else if (grid)
            k->grid[n] = (uint32_t)t.i;
        else if (t.i != 1 && t.i != 2 && t.i != 4 && t.i != 8 && t.i != 16)
            lex_err(p, t.loc, "warps must be 1, 2, 4, 8 or 16, got %.*s", TXT(&t));
        else
            k->warps = (uint32_t)t.i;
        if (!grid || n == 2 || !is(p, T_COMMA)) break;
        lex_next(p);
    }
    return expect(p, T_RPAREN, grid ? "expected ')' after at most three grid sizes" : "expected ')'");
}

static void parse_kernel(P *p)
{
    TirModule *m = p->m;
    TirLoc kloc = p->cur.loc;
    lex_next(p);
    if (p->syms.cap)
        memset(p->syms.e, 0, p->syms.cap * sizeof *p->syms.e), p->syms.n = 0;
    p->eof_reported = p->lexerr = 0;
    Tok kn = p->cur;
    if (!is(p, T_KNAME)) return lex_err(p, here(p), "expected a kernel name ('@name') after 'kernel'"), skip_kernel(p);
    lex_next(p);
    uint32_t k = tir_add_kernel(m), body = tir_add_block(m);
    if (k == UINT32_MAX || !body || m->oom) return lex_oom(p);
    if (!tir_kernel_name_ok(kn.s, kn.n)) /* it becomes the PTX .entry name: ptxas would reject it */
        lex_err(p, kn.loc, "kernel name '@%.*s' is not a PTX identifier: use letters, digits and '_', starting "
                "with a letter or '_' (not WARP_SZ or __tilec_...)", TXT(&kn));
    else if (map_find(&p->kernels, kn.s, kn.n))
        lex_err(p, kn.loc, "redefinition of kernel '@%.*s'", TXT(&kn));
    else if (!map_add(p, &p->kernels, kn.s, kn.n)) return;
    m->kernels[k].name = name_str(p, &kn), m->kernels[k].loc = kloc, m->kernels[k].body = body;
    p->depth = 0, p->scope[0] = body, p->loop[0] = 0;
    if (!expect(p, T_LPAREN, "expected '(' after the kernel name"))
        return skip_kernel(p);
    size_t np = 0;
    while (!is(p, T_RPAREN)) {
        TirType t;
        Tok pn = p->cur;
        if (!is(p, T_VALUE)) return lex_err(p, here(p), "expected a parameter ('%%name: type')"), skip_kernel(p);
        lex_next(p);
        int ok = define(p, &pn, S_DEF) != NULL;
        if (!expect(p, T_COLON, "expected ':' and a type after the parameter name") || !parse_type(p, &t))
            return skip_kernel(p);
        if (t.kind == TY_TILE)
            lex_err(p, pn.loc, "parameter '%%%.*s' must be a pointer or a scalar, not a tile", TXT(&pn));
        if ((t.kind == TY_PTR || t.kind == TY_SCALAR) && ok) {
            uint32_t v = tir_add_value(m, t, VAL_PARAM, k, (uint32_t)np, name_str(p, &pn));
            if (!v || !grow(p, (void **)&p->args, &p->cap_args, np + 1, sizeof *p->args)) return lex_oom(p);
            p->args[np++] = v;
            bind(p, &pn, v);
        }
        if (is(p, T_COMMA))
            lex_next(p);
        else if (!is(p, T_RPAREN)) return lex_err(p, here(p), "expected ',' or ')' after a parameter"), skip_kernel(p);
    }
    lex_next(p);
    m->kernels[k].params = tir_pool_push(m, p->args, (uint32_t)np), m->kernels[k].nparams = (uint32_t)np;
    int seen[2] = {0, 0}, brace = 1;
    while (!is(p, T_LBRACE) && brace) {
        if (p->cur.nl && stmt_start(p)) /* a forgotten '{': read the body anyway */
            brace = 0, lex_err(p, here(p), "expected '{' to start the kernel body");
        else if (!kernel_attr(p, &m->kernels[k], seen)) return skip_kernel(p);
    }
    parse_block(p, body, 0, brace);
}

int tir_define(TirDefines *defs, const char *s, const char **why)
{
    const char *eq = s ? strchr(s, '=') : NULL;
    size_t n = eq ? (size_t)(eq - s) : 0;
    *why = "expected NAME=INTEGER";
    if (!eq || n == 0 || n >= TIR_DEFINE_NAME || is_digit(s[0]))
        return -1;
    for (size_t i = 0; i < n; i++) /* as the lexer reads a $NAME */
        if (!is_digit(s[i]) && !is_alpha(s[i]))
            return -1;
    const char *v = eq + 1;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno == ERANGE || !(is_digit(*v) || (*v == '-' && is_digit(v[1])))) {
        *why = "the value must be a decimal integer that fits in 64 bits";
        return -1;
    }
    TirDefine *d = (TirDefine *)lex_define_find(defs, s, n);
    if (!d) {
        if (defs->n == TIR_MAX_DEFINES) {
            *why = "too many defines (at most 16)";
            return -1;
        }
        d = &defs->d[defs->n++];
    }
    memcpy(d->name, s, n);
    d->name[n] = 0;
    d->value = x;
    snprintf(d->text, sizeof d->text, "%lld", x);
    return 0;
}

int tir_parse(TirModule *m, const char *src, size_t len, Diag *d) { return tir_parse_defs(m, src, len, NULL, d); }

int tir_parse_defs(TirModule *m, const char *src, size_t len, const TirDefines *defs, Diag *d)
{
    char buf[64];
    P p = {.m = m, .d = d, .defs = defs, .src = src ? src : "", .len = src ? len : 0, .line = 1, .col = 1, .bol = 1,
           .err0 = d->nerrors, .prev_end = {1, 1}};
    int room = d->max_errors - d->nerrors;
    p.limit = d->nerrors + (room > 0 ? room : 1);
    sb_init(&p.str);
    /* numbers are read and written in the C locale whatever the host set */
    locale_t cl = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = cl ? uselocale(cl) : (locale_t)0;
    if (m->oom)
        lex_oom(&p);
    for (lex_next(&p); !is(&p, T_EOF) && !p.stop;) {
        if (is_word(&p, "kernel")) {
            parse_kernel(&p);
            continue;
        }
        lex_err(&p, p.cur.loc, "expected 'kernel', got %s", got(&p, buf, sizeof buf, 0));
        do
            lex_next(&p);
        while (!is(&p, T_EOF) && !is_word(&p, "kernel") && !p.stop);
    }
    if (m->oom)
        lex_oom(&p);
    if (cl)
        uselocale(old), freelocale(cl);
    sb_free(&p.str);
    free(p.insts), free(p.ops), free(p.args), free(p.islit), free(p.names), free(p.syms.e), free(p.kernels.e);
    return d->nerrors - p.err0;
}
