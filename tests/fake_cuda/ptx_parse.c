/*
 * PTX text to the interpreter's instructions (ptx_emu_impl.h): a module's
 * shared and global variables, and each entry's parameters, registers,
 * labels and statements, with every operand resolved to a register slot,
 * a symbol or an immediate once, here, so that running needs no strings.
 * Scoped `{ .reg ... }` blocks (tilec's inline asm) get registers of their
 * own. Needs: PTX as LLVM's NVPTX back end and tilec's inline asm write it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_emu_impl.h"

typedef struct {
    PtxEmuModule *m;
    const char *p, *end;
    int line;
    char *err;
    size_t errlen;
    int failed;
} Parser;

static void perr(Parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    int n = snprintf(ps->err, ps->errlen, "ptx line %d: ", ps->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < ps->errlen)
        vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

void *ptx_grow(void *p, unsigned *cap, unsigned need, size_t size)
{
    if (need <= *cap)
        return p;
    unsigned c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    if (!q)
        abort(); /* the fake driver's tests: out of host memory is not a case */
    *cap = c;
    return q;
}

/* ---- lexing ------------------------------------------------------------- */

static void skip_space(Parser *ps)
{
    for (;;) {
        while (ps->p < ps->end && isspace((unsigned char)*ps->p)) {
            if (*ps->p == '\n')
                ps->line++;
            ps->p++;
        }
        if (ps->p + 1 < ps->end && ps->p[0] == '/' && ps->p[1] == '/') {
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
            continue;
        }
        if (ps->p + 1 < ps->end && ps->p[0] == '/' && ps->p[1] == '*') {
            const char *e = strstr(ps->p + 2, "*/");
            for (const char *c = ps->p; c < (e ? e : ps->end); c++)
                ps->line += *c == '\n';
            ps->p = e ? e + 2 : ps->end;
            continue;
        }
        return;
    }
}

static int is_ident(int c) { return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.' || c == ':'; }

/* the rest of the line (a directive without a semicolon: .loc, .file) */
static void skip_line(Parser *ps)
{
    while (ps->p < ps->end && *ps->p != '\n')
        ps->p++;
}

/* up to the next ';' outside brackets: the statement's text in buf */
static int statement(Parser *ps, char *buf, size_t cap)
{
    size_t n = 0;
    int depth = 0;
    while (ps->p < ps->end) {
        char c = *ps->p++;
        if (c == '\n')
            ps->line++;
        if (c == '/' && ps->p < ps->end && *ps->p == '/') {
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
            continue;
        }
        if (c == '{' || c == '[' || c == '(')
            depth++;
        else if (c == '}' || c == ']' || c == ')')
            depth--;
        else if (c == ';' && depth <= 0) {
            while (n && isspace((unsigned char)buf[n - 1]))
                n--;
            buf[n] = 0;
            return 1;
        }
        if (n + 1 >= cap) {
            perr(ps, "statement longer than %zu bytes", cap);
            return 0;
        }
        buf[n++] = isspace((unsigned char)c) ? ' ' : c;
    }
    perr(ps, "no ';' before the end");
    return 0;
}

/* ---- names ----------------------------------------------------------------- */

/* A register declaration: `prefix<count>` (names prefix0 .. prefix{count-1})
 * or one name (count 0), its slots from `slot`, in scope `depth`. */
typedef struct {
    char name[48];
    unsigned count, slot;
    int depth;
} RegDecl;

typedef struct {
    RegDecl *d;
    unsigned n, cap;
    int depth;
    unsigned nslots;
} Regs;

static int find_reg(const Regs *r, const char *name, unsigned *slot)
{
    for (unsigned i = r->n; i-- > 0;) {
        const RegDecl *d = &r->d[i];
        size_t len = strlen(d->name);
        if (!d->count) {
            if (!strcmp(d->name, name)) {
                *slot = d->slot;
                return 1;
            }
        } else if (!strncmp(d->name, name, len) && name[len] && isdigit((unsigned char)name[len])) {
            char *e;
            unsigned long k = strtoul(name + len, &e, 10);
            if (!*e && k < d->count) {
                *slot = d->slot + (unsigned)k;
                return 1;
            }
        }
    }
    return 0;
}

static int sym_find(const PtxEmuModule *m, const PtxEntry *e, const char *name)
{
    if (e)
        for (unsigned i = 0; i < e->nparams; i++)
            if (!strcmp(e->params[i].name, name))
                return (int)(PTX_SYM_PARAM_BASE + i);
    for (unsigned i = 0; i < m->nvars; i++)
        if (!strcmp(m->vars[i].name, name))
            return (int)i;
    return -1;
}

/* ---- types and modifiers ----------------------------------------------------- */

static const struct {
    const char *name;
    uint8_t type;
} type_names[] = {
    {"pred", T_PRED}, {"b8", T_B8},   {"b16", T_B16}, {"b32", T_B32},   {"b64", T_B64},   {"u8", T_U8},
    {"u16", T_U16},   {"u32", T_U32}, {"u64", T_U64}, {"s8", T_S8},     {"s16", T_S16},   {"s32", T_S32},
    {"s64", T_S64},   {"f16", T_F16}, {"f32", T_F32}, {"f64", T_F64},   {"bf16", T_BF16}, {"f16x2", T_F16X2},
    {"tf32", T_TF32}, {"bf16x2", T_BF16X2},
};

static int type_of(const char *s)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (!strcmp(type_names[i].name, s))
            return type_names[i].type;
    return -1;
}

static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ",
                                         "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

static const struct {
    const char *name;
    int op;
} op_names[] = {
    {"mov", PO_MOV},     {"ld", PO_LD},       {"ldu", PO_LD},       {"st", PO_ST},       {"add", PO_ADD},
    {"sub", PO_SUB},     {"mul", PO_MUL},     {"mad", PO_MAD},      {"fma", PO_FMA},     {"div", PO_DIV},
    {"rem", PO_REM},     {"and", PO_AND},     {"or", PO_OR},        {"xor", PO_XOR},     {"not", PO_NOT},
    {"cnot", PO_CNOT},   {"shl", PO_SHL},     {"shr", PO_SHR},      {"min", PO_MIN},     {"max", PO_MAX},
    {"abs", PO_ABS},     {"neg", PO_NEG},     {"setp", PO_SETP},    {"selp", PO_SELP},   {"cvt", PO_CVT},
    {"cvta", PO_CVTA},   {"bra", PO_BRA},     {"ret", PO_RET},      {"exit", PO_RET},    {"bar", PO_BAR},
    {"barrier", PO_BAR}, {"bfe", PO_BFE},     {"bfi", PO_BFI},      {"prmt", PO_PRMT},   {"popc", PO_POPC},
    {"clz", PO_CLZ},     {"brev", PO_BREV},   {"rcp", PO_RCP},      {"sqrt", PO_SQRT},   {"rsqrt", PO_RSQRT},
    {"ex2", PO_EX2},     {"lg2", PO_LG2},     {"sin", PO_SIN},      {"cos", PO_COS},     {"tanh", PO_TANH},
    {"copysign", PO_COPYSIGN}, {"testp", PO_TESTP}, {"mma", PO_MMA}, {"shfl", PO_SHFL}, {"vote", PO_VOTE},
    {"atom", PO_ATOM},   {"red", PO_RED},     {"trap", PO_TRAP},    {"fence", PO_NOP},   {"membar", PO_NOP},
    {"setmaxnreg", PO_NOP}, {"prefetch", PO_NOP}, {"prefetchu", PO_NOP}, {"mbarrier", PO_MBAR},
    {"wgmma", PO_WGMMA}, {"cp", PO_CP},       {"activemask", PO_ACTIVEMASK}, {"mapa", PO_MAPA},
    {"shf", PO_SHF},
};

/* the dotted opcode into in->op, types and modifiers */
static int decode_opcode(Parser *ps, PtxInsn *in, const char *opc)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%s", opc);
    char *parts[24];
    int np = 0;
    for (char *s = strtok(buf, "."); s && np < 24; s = strtok(NULL, "."))
        parts[np++] = s;
    if (!np)
        return 0;
    in->op = PO_NONE;
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (!strcmp(op_names[i].name, parts[0]))
            in->op = (uint8_t)op_names[i].op;
    if (in->op == PO_NONE) {
        perr(ps, "unknown instruction '%s'", opc);
        return 0;
    }
    in->space = SP_GENERIC;
    int ntypes = 0;
    for (int i = 1; i < np; i++) {
        const char *s = parts[i];
        int t = type_of(s);
        if (t >= 0) {
            if (ntypes < 4)
                in->types[ntypes] = (uint8_t)t;
            ntypes++;
            continue;
        }
        int found = 0;
        for (size_t c = 0; c < sizeof cmp_names / sizeof cmp_names[0]; c++)
            if (!strcmp(cmp_names[c], s) && (in->op == PO_SETP || in->op == PO_TESTP)) {
                in->cmp = (uint8_t)(c + 1);
                found = 1;
            }
        if (found)
            continue;
        if (in->op == PO_SETP && (!strcmp(s, "and") || !strcmp(s, "or") || !strcmp(s, "xor")))
            in->bop = s[0] == 'a' ? 1 : s[0] == 'o' ? 2 : 3;
        else if (!strcmp(s, "global"))
            in->space = SP_GLOBAL;
        else if (!strncmp(s, "shared", 6))
            in->space = SP_SHARED;
        else if (!strcmp(s, "param"))
            in->space = SP_PARAM;
        else if (!strcmp(s, "local"))
            in->space = SP_LOCAL;
        else if (!strcmp(s, "const"))
            in->space = SP_GLOBAL;
        else if (!strcmp(s, "v2") || !strcmp(s, "v4"))
            in->vec = (uint8_t)(s[1] - '0');
        else if (!strcmp(s, "ftz"))
            in->mods |= M_FTZ;
        else if (!strcmp(s, "sat"))
            in->mods |= M_SAT;
        else if (!strcmp(s, "lo"))
            in->mods |= M_LO;
        else if (!strcmp(s, "hi"))
            in->mods |= M_HI;
        else if (!strcmp(s, "wide"))
            in->mods |= M_WIDE;
        else if (!strcmp(s, "NaN"))
            in->mods |= M_NAN;
        else if (!strcmp(s, "rn") || !strcmp(s, "rz") || !strcmp(s, "rm") || !strcmp(s, "rp") ||
                 !strcmp(s, "rni") || !strcmp(s, "rzi") || !strcmp(s, "rmi") || !strcmp(s, "rpi")) {
            in->rnd = s[1] == 'n' ? R_RN : s[1] == 'z' ? R_RZ : s[1] == 'm' ? R_RM : R_RP;
            if (s[2] == 'i')
                in->mods |= M_RINT;
        }
        else if (!strcmp(s, "rna"))
            in->rnd = R_RNA;
        else if (!strcmp(s, "approx") || !strcmp(s, "full"))
            in->mods |= M_APPROX;
        else if (!strcmp(s, "to"))
            in->mods |= M_TO;
        else if (!strcmp(s, "idx") || !strcmp(s, "up") || !strcmp(s, "down") || !strcmp(s, "bfly"))
            in->sub = (uint8_t)(s[0] == 'i' ? SHFL_IDX : s[0] == 'u' ? SHFL_UP : s[0] == 'd' ? SHFL_DOWN : SHFL_BFLY);
        else if (in->op == PO_MBAR && !in->sub) {
            in->sub = !strcmp(s, "init")       ? MB_INIT
                      : !strcmp(s, "inval")    ? MB_INVAL
                      : !strcmp(s, "arrive")   ? MB_ARRIVE
                      : !strcmp(s, "expect_tx") ? MB_EXPECT_TX
                      : !strcmp(s, "try_wait") ? MB_TRY_WAIT
                      : !strcmp(s, "test_wait") ? MB_TRY_WAIT
                                                : 0;
            if (!in->sub) {
                perr(ps, "unknown mbarrier operation in '%s'", opc);
                return 0;
            }
        } else if (in->op == PO_MBAR && !strcmp(s, "expect_tx"))
            in->mods |= M_TX;
        else if (in->op == PO_MBAR && !strcmp(s, "parity"))
            in->mods |= M_PARITY;
        else if (in->op == PO_WGMMA && !in->sub)
            in->sub = !strcmp(s, "fence")           ? WG_FENCE
                      : !strcmp(s, "mma_async")      ? WG_MMA
                      : !strcmp(s, "commit_group")   ? WG_COMMIT
                      : !strcmp(s, "wait_group")     ? WG_WAIT
                                                     : 0;
        else if (in->op == PO_CP && !in->sub)
            in->sub = !strcmp(s, "async") ? CP_ASYNC : 0;
        else if (in->op == PO_CP && in->sub == CP_ASYNC && !strcmp(s, "bulk"))
            in->sub = CP_BULK;
        else if (in->op == PO_CP && in->sub == CP_BULK && !strcmp(s, "tensor"))
            in->sub = CP_TENSOR;
        else if (in->op == PO_CP && in->sub == CP_ASYNC && !strcmp(s, "commit_group"))
            in->sub = CP_COMMIT;
        else if (in->op == PO_CP && in->sub == CP_ASYNC && (!strcmp(s, "wait_group") || !strcmp(s, "wait_all")))
            in->sub = s[5] == 'a' ? CP_WAIT_ALL : CP_WAIT;
        else if (in->op == PO_CP && in->sub == CP_ASYNC && !strcmp(s, "mbarrier"))
            in->sub = CP_MBAR_ARRIVE;
        else if (in->op == PO_CP && in->sub == CP_BULK && (!strcmp(s, "commit_group") || !strcmp(s, "wait_group")))
            in->sub = CP_NOP;
        else if (in->op == PO_CP && !strcmp(s, "multicast::cluster"))
            in->sub2 = 1;
        else if (in->op == PO_CP && !strcmp(s, "im2col")) {
            perr(ps, "'%s': the interpreter runs no im2col copies", opc);
            return 0;
        } else if ((in->op == PO_MMA || in->op == PO_WGMMA) && s[0] == 'm' && isdigit((unsigned char)s[1])) {
            unsigned mm, nn, kk;
            if (sscanf(s, "m%un%uk%u", &mm, &nn, &kk) != 3) {
                perr(ps, "bad shape in '%s'", opc);
                return 0;
            }
            in->shape[0] = (uint16_t)mm, in->shape[1] = (uint16_t)nn, in->shape[2] = (uint16_t)kk;
        } else if (in->op == PO_MMA && !strcmp(s, "col") && !in->shape[0]) {
            perr(ps, "'%s': A must be row-major", opc);
            return 0;
        } else if (in->op == PO_VOTE || in->op == PO_ATOM || in->op == PO_RED) {
            in->sub2 = !strcmp(s, "all")      ? 1
                       : !strcmp(s, "any")    ? 2
                       : !strcmp(s, "ballot") ? 3
                       : !strcmp(s, "uni")    ? 4
                       : !strcmp(s, "add")    ? 10
                       : !strcmp(s, "min")    ? 11
                       : !strcmp(s, "max")    ? 12
                       : !strcmp(s, "exch")   ? 13
                       : !strcmp(s, "cas")    ? 14
                       : !strcmp(s, "or")     ? 15
                       : !strcmp(s, "and")    ? 16
                                              : in->sub2;
        }
        /* anything else (sync, aligned, uni, nc, volatile, scopes, cache hints, row, col, ...) changes
         * nothing in a serial schedule */
    }
    in->ntypes = (uint8_t)(ntypes > 4 ? 4 : ntypes);
    if (in->op == PO_BAR) {
        int cluster = strstr(opc, ".cluster") != NULL, arrive = strstr(opc, ".arrive") != NULL;
        in->sub = strstr(opc, ".warp") ? BAR_WARP
                  : cluster            ? (arrive ? BAR_CLUSTER_ARRIVE : BAR_CLUSTER_WAIT)
                  : arrive             ? BAR_ARRIVE
                                       : BAR_SYNC;
    }
    if (in->op == PO_SHF) { /* shf.{l,r}.{wrap,clamp}.b32: sub 1 left, 2 right; sub2 1 clamp */
        in->sub = strstr(opc, ".l.") ? 1 : strstr(opc, ".r.") ? 2 : 0;
        in->sub2 = strstr(opc, ".clamp") != NULL;
        if (!in->sub || (!in->sub2 && !strstr(opc, ".wrap"))) {
            perr(ps, "'%s': a funnel shift needs .l or .r and .wrap or .clamp", opc);
            return 0;
        }
    }
    if (in->op == PO_CP && strstr(opc, ".noinc"))
        in->mods |= M_NOINC;
    if (in->op == PO_CP && strstr(opc, ".global.shared"))
        in->mods |= M_TO_GLOBAL;
    if (in->op == PO_WGMMA && !in->sub) {
        perr(ps, "unknown wgmma operation '%s'", opc);
        return 0;
    }
    return 1;
}

/* ---- operands ------------------------------------------------------------------ */

static const char *const sreg_names[] = {"%tid.x",   "%tid.y",   "%tid.z",    "%ntid.x",  "%ntid.y",
                                          "%ntid.z",  "%ctaid.x", "%ctaid.y",  "%ctaid.z", "%nctaid.x",
                                          "%nctaid.y", "%nctaid.z", "%laneid", "%warpid",  "%clock",
                                          "%clock64", "%nwarpid", "%smid",     "%nsmid",   "%globaltimer",
                                          "%lanemask_lt", "%dynamic_smem_size", "%cluster_ctarank",
                                          "%cluster_nctarank"};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

static int parse_imm(const char *s, int64_t *v)
{
    char *e;
    if ((s[0] == '0' && (s[1] == 'f' || s[1] == 'F') && strlen(s) == 10) ||
        (s[0] == '0' && (s[1] == 'd' || s[1] == 'D') && strlen(s) == 18)) {
        *v = (int64_t)strtoull(s + 2, &e, 16);
        return !*e;
    }
    if (s[0] == '-' || isdigit((unsigned char)s[0])) {
        int neg = s[0] == '-';
        uint64_t u = strtoull(s + neg, &e, 0);
        if (*e == 'U' || *e == 'u')
            e++;
        *v = (int64_t)(neg ? 0 - u : u); /* unsigned: -9223372036854775808 (an i64 saturation bound) too */
        return !*e;
    }
    return 0;
}

typedef struct {
    Parser *ps;
    Regs *regs;
    PtxEntry *e;
    /* labels used before they are defined: (insn, operand, name) */
    struct Fix {
        unsigned insn, op;
        char name[64];
    } *fix;
    unsigned nfix, capfix;
} Ctx;

static int operand(Ctx *c, PtxInsn *in, unsigned k, char *s)
{
    PtxOp *o = &in->o[k];
    PtxEmuModule *m = c->ps->m;
    s = trim(s);
    if (!*s) {
        perr(c->ps, "empty operand");
        return 0;
    }
    if (!strcmp(s, "_")) {
        o->kind = K_SINK;
        return 1;
    }
    if (s[0] == '!') {
        o->neg = 1;
        s = trim(s + 1);
    }
    if (s[0] == '{') {
        size_t n = strlen(s);
        if (s[n - 1] != '}') {
            perr(c->ps, "bad vector operand '%s'", s);
            return 0;
        }
        s[n - 1] = 0;
        o->kind = K_VEC;
        o->first = m->nvec;
        o->n = 0;
        for (char *t = strtok(s + 1, ","); t; t = strtok(NULL, ",")) {
            PtxInsn tmp;
            memset(&tmp, 0, sizeof tmp);
            char item[64];
            snprintf(item, sizeof item, "%s", t);
            /* a vector's items are registers, sinks or immediates */
            if (!operand(c, &tmp, 0, item))
                return 0;
            m->vec = ptx_grow(m->vec, &m->capvec, m->nvec + 1, sizeof *m->vec);
            m->vec[m->nvec++] = tmp.o[0];
            o->n++;
        }
        return 1;
    }
    if (s[0] == '[') {
        size_t n = strlen(s);
        if (s[n - 1] != ']') {
            perr(c->ps, "bad address '%s'", s);
            return 0;
        }
        s[n - 1] = 0;
        o->kind = K_ADDR;
        o->reg = -1;
        o->sym = -1;
        char *a = trim(s + 1);
        char *comma = strchr(a, ',');
        if (comma) { /* a tensor copy's [map, {coordinates}]: the coordinates as a vector */
            *comma = 0;
            PtxInsn tmp;
            memset(&tmp, 0, sizeof tmp);
            char coords[256];
            snprintf(coords, sizeof coords, "%s", comma + 1);
            if (!operand(c, &tmp, 0, coords) || tmp.o[0].kind != K_VEC) {
                perr(c->ps, "bad tensor coordinates in '%s'", s);
                return 0;
            }
            o->first = tmp.o[0].first;
            o->n = tmp.o[0].n;
            a = trim(a);
        }
        /* NAME[+-]OFFSET, REG[+-]OFFSET, NAME, REG, OFFSET */
        char *plus = NULL;
        for (char *q = a + 1; *q; q++)
            if (*q == '+' || (*q == '-' && q[-1] != '+')) {
                plus = q;
                break;
            }
        if (plus) {
            int64_t off;
            char *num = trim(plus + (*plus == '+'));
            if (!parse_imm(num, &off)) {
                perr(c->ps, "bad address offset '%s'", num);
                return 0;
            }
            o->imm = off;
            *plus = 0;
            a = trim(a);
        }
        int64_t v;
        if (parse_imm(a, &v)) {
            o->imm += v;
            return 1;
        }
        unsigned slot;
        if (find_reg(c->regs, a, &slot)) {
            o->reg = (int)slot;
            return 1;
        }
        o->sym = sym_find(m, c->e, a);
        if (o->sym < 0) {
            perr(c->ps, "unknown name '%s' in an address", a);
            return 0;
        }
        return 1;
    }
    int64_t v;
    if (parse_imm(s, &v)) {
        o->kind = K_IMM;
        o->imm = v;
        return 1;
    }
    unsigned slot;
    if (find_reg(c->regs, s, &slot)) {
        o->kind = K_REG;
        o->reg = (int)slot;
        return 1;
    }
    for (size_t i = 0; i < sizeof sreg_names / sizeof sreg_names[0]; i++)
        if (!strcmp(s, sreg_names[i])) {
            o->kind = K_SREG;
            o->reg = (int)i;
            return 1;
        }
    int sym = sym_find(m, c->e, s);
    if (sym >= 0) {
        o->kind = K_SYM;
        o->sym = sym;
        return 1;
    }
    if (s[0] == '$' || isalpha((unsigned char)s[0]) || s[0] == '_') { /* a label, perhaps later */
        o->kind = K_LABEL;
        c->fix = ptx_grow(c->fix, &c->capfix, c->nfix + 1, sizeof *c->fix);
        struct Fix *f = &c->fix[c->nfix++];
        f->insn = c->e->ninsns;
        f->op = k;
        snprintf(f->name, sizeof f->name, "%s", s);
        return 1;
    }
    perr(c->ps, "unknown operand '%s'", s);
    return 0;
}

/* ---- declarations ----------------------------------------------------------------- */

/* `.reg .TYPE name, name<count>, ...` (text after ".reg") */
static int reg_decl(Ctx *c, char *s)
{
    s = trim(s);
    char *sp = strchr(s, ' ');
    if (s[0] != '.' || !sp) {
        perr(c->ps, "bad .reg declaration");
        return 0;
    }
    *sp = 0;
    int ty = type_of(s + 1);
    if (ty < 0) {
        perr(c->ps, "unknown register type '%s'", s);
        return 0;
    }
    for (char *t = strtok(sp + 1, ","); t; t = strtok(NULL, ",")) {
        t = trim(t);
        c->regs->d = ptx_grow(c->regs->d, &c->regs->cap, c->regs->n + 1, sizeof *c->regs->d);
        RegDecl *d = &c->regs->d[c->regs->n++];
        memset(d, 0, sizeof *d);
        char *lt = strchr(t, '<');
        if (lt) {
            *lt = 0;
            unsigned long n = strtoul(lt + 1, NULL, 10);
            if (n == 0 || n > PTX_MAX_REGS) {
                perr(c->ps, "a register array of %lu (1 .. %u)", n, PTX_MAX_REGS);
                return 0;
            }
            d->count = (unsigned)n;
        }
        snprintf(d->name, sizeof d->name, "%s", trim(t));
        d->slot = c->regs->nslots;
        d->depth = c->regs->depth;
        c->regs->nslots += d->count ? d->count : 1;
        if (c->regs->nslots > 4 * PTX_MAX_REGS) {
            perr(c->ps, "more than %u registers", 4 * PTX_MAX_REGS);
            return 0;
        }
    }
    return 1;
}

/* `.shared .align A .b8 NAME[N]`, `.extern .shared ...`, `.global ...` at module level */
static int var_decl(Parser *ps, char *s)
{
    PtxEmuModule *m = ps->m;
    int shared = strstr(s, ".shared") != NULL, global = strstr(s, ".global") != NULL || strstr(s, ".const") != NULL;
    if (!shared && !global)
        return 1; /* .version, .target, .address_size, ... */
    char *eq = strchr(s, '=');
    if (eq)
        *eq = 0;
    unsigned align = 1;
    char *al = strstr(s, ".align");
    if (al)
        align = (unsigned)strtoul(al + 6, NULL, 10);
    if (!align || (align & (align - 1))) {
        perr(ps, "alignment %u is not a power of two", align);
        return 0;
    }
    /* the name: the last word, with [N] */
    char *br = strchr(s, '[');
    uint64_t count = 1;
    if (br) {
        count = strtoull(br + 1, NULL, 10);
        *br = 0;
    }
    char *name = trim(s);
    char *last = strrchr(name, ' ');
    name = last ? last + 1 : name;
    unsigned esize = 1;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        char t[16];
        snprintf(t, sizeof t, ".%s ", type_names[i].name);
        if (strstr(s, t))
            esize = type_names[i].type == T_B16 || type_names[i].type == T_U16 || type_names[i].type == T_S16 ? 2
                    : type_names[i].type == T_B32 || type_names[i].type == T_U32 || type_names[i].type == T_S32 ||
                            type_names[i].type == T_F32
                        ? 4
                    : type_names[i].type == T_B64 || type_names[i].type == T_U64 || type_names[i].type == T_S64 ||
                            type_names[i].type == T_F64
                        ? 8
                        : esize;
    }
    m->vars = ptx_grow(m->vars, &m->capvars, m->nvars + 1, sizeof *m->vars);
    PtxVar *v = &m->vars[m->nvars++];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->shared = shared;
    v->bytes = count * esize;
    if (shared) {
        uint64_t off = (m->shared_bytes + align - 1) / align * align;
        v->offset = off;
        m->shared_bytes = off + v->bytes;
        v->dynamic = br && count == 0;
        if (v->dynamic)
            m->dynamic_align = align > m->dynamic_align ? align : m->dynamic_align;
    } else {
        v->host = calloc(1, v->bytes ? v->bytes : 1);
        if (!v->host)
            abort();
        if (eq) { /* = { a, b, ... } */
            char *q = strchr(eq + 1, '{');
            uint64_t i = 0;
            for (char *t = q ? strtok(q + 1, ",}") : NULL; t && i < count; t = strtok(NULL, ",}"), i++) {
                int64_t val;
                if (parse_imm(trim(t), &val))
                    memcpy(v->host + i * esize, &val, esize);
            }
        }
    }
    return 1;
}

/* ---- entries ------------------------------------------------------------------------- */

static int add_insn(Ctx *c, char *text)
{
    PtxEntry *e = c->e;
    e->insns = ptx_grow(e->insns, &e->capinsns, e->ninsns + 1, sizeof *e->insns);
    PtxInsn *in = &e->insns[e->ninsns];
    memset(in, 0, sizeof *in);
    for (unsigned k = 0; k < PTX_MAX_OPS; k++) /* an operand never given names no register or symbol */
        in->o[k].reg = in->o[k].sym = -1;
    in->guard = -1;
    in->line = c->ps->line;
    char *s = trim(text);
    if (s[0] == '@') {
        char *sp = strchr(s, ' ');
        if (!sp) {
            perr(c->ps, "bad guard");
            return 0;
        }
        *sp = 0;
        char *g = s + 1;
        if (*g == '!') {
            in->guard_neg = 1;
            g++;
        }
        unsigned slot;
        if (!find_reg(c->regs, g, &slot)) {
            perr(c->ps, "unknown predicate '%s'", g);
            return 0;
        }
        in->guard = (int)slot;
        s = trim(sp + 1);
    }
    char *sp = s;
    while (*sp && !isspace((unsigned char)*sp))
        sp++;
    char opc[160];
    snprintf(opc, sizeof opc, "%.*s", (int)(sp - s), s);
    if (!decode_opcode(c->ps, in, opc))
        return 0;
    snprintf(in->text, sizeof in->text, "%.95s", opc);
    /* operands: split at top-level commas; setp's "p|q" is two */
    char *ops = trim(sp);
    unsigned k = 0;
    int depth = 0;
    char *start = ops;
    for (char *q = ops;; q++) {
        if (*q == '{' || *q == '[')
            depth++;
        else if (*q == '}' || *q == ']')
            depth--;
        if ((*q == ',' && depth == 0) || (*q == '|' && depth == 0) || !*q) {
            char save = *q;
            *q = 0;
            if (*trim(start)) {
                if (k >= PTX_MAX_OPS) {
                    perr(c->ps, "too many operands");
                    return 0;
                }
                if (save == '|')
                    in->pair = 1; /* the next operand is the second destination */
                if (!operand(c, in, k++, start))
                    return 0;
            }
            if (!save)
                break;
            start = q + 1;
        }
    }
    in->nops = (uint8_t)k;
    e->ninsns++;
    return 1;
}

static int entry(Parser *ps, char *head)
{
    PtxEmuModule *m = ps->m;
    m->entries = ptx_grow(m->entries, &m->capentries, m->nentries + 1, sizeof *m->entries);
    PtxEntry *e = &m->entries[m->nentries];
    memset(e, 0, sizeof *e);
    char *name = strstr(head, ".entry") + 6;
    name = trim(name);
    char *paren = strchr(name, '(');
    if (!paren) {
        perr(ps, "an entry without parameters");
        return 0;
    }
    *paren = 0;
    snprintf(e->name, sizeof e->name, "%s", trim(name));
    /* parameters up to ')' */
    char *params = paren + 1, *close = strchr(params, ')');
    if (!close) {
        perr(ps, "unterminated parameter list");
        return 0;
    }
    *close = 0;
    for (char *t = strtok(params, ","); t; t = strtok(NULL, ",")) {
        t = trim(t);
        if (!*t)
            continue;
        e->params = ptx_grow(e->params, &e->capparams, e->nparams + 1, sizeof *e->params);
        PtxParam *p = &e->params[e->nparams++];
        memset(p, 0, sizeof *p);
        char *br = strchr(t, '[');
        unsigned bytes = 8;
        if (br) {
            bytes = (unsigned)strtoul(br + 1, NULL, 10);
            *br = 0;
        } else if (strstr(t, ".u32") || strstr(t, ".s32") || strstr(t, ".b32") || strstr(t, ".f32"))
            bytes = 4;
        else if (strstr(t, ".u16") || strstr(t, ".s16") || strstr(t, ".b16"))
            bytes = 2;
        else if (strstr(t, ".u8") || strstr(t, ".s8") || strstr(t, ".b8"))
            bytes = 1;
        char *last = strrchr(trim(t), ' ');
        snprintf(p->name, sizeof p->name, "%s", last ? last + 1 : t);
        p->bytes = bytes;
    }
    /* directives up to the body */
    char *rest = close + 1;
    char *mx = strstr(rest, ".maxntid");
    if (mx)
        e->maxntid = (unsigned)strtoul(mx + 8, NULL, 10);
    e->cluster = 1;
    if (strstr(rest, ".reqnctapercluster") || strstr(rest, ".explicitcluster")) {
        const char *r = strstr(rest, ".reqnctapercluster");
        unsigned x = 0, y = 0, z = 0;
        if (!r || sscanf(r + 18, " %u , %u , %u", &x, &y, &z) != 3 || x < 1 || x > 8 || y != 1 || z != 1) {
            perr(ps, "entry %s: only clusters of 1 .. 8 blocks along x are run", e->name);
            return 0;
        }
        e->cluster = x;
    }
    Regs regs = {0};
    regs.depth = 1; /* inside the body's brace */
    Ctx c = {ps, &regs, e, NULL, 0, 0};
    /* the body: statements, labels, scoped blocks */
    char buf[16384];
    int ok = 1;
    for (;;) {
        skip_space(ps);
        if (ps->p >= ps->end) {
            perr(ps, "entry %s has no end", e->name);
            ok = 0;
            break;
        }
        char ch = *ps->p;
        if (ch == '{') {
            ps->p++;
            regs.depth++;
            continue;
        }
        if (ch == '}') {
            ps->p++;
            while (regs.n && regs.d[regs.n - 1].depth == regs.depth)
                regs.n--;
            if (--regs.depth == 0)
                break;
            continue;
        }
        if (!strncmp(ps->p, ".loc", 4) || !strncmp(ps->p, ".file", 5)) {
            skip_line(ps);
            continue;
        }
        /* a label: NAME: */
        const char *q = ps->p;
        while (q < ps->end && is_ident((unsigned char)*q) && *q != ':')
            q++;
        if (q < ps->end && *q == ':' && q > ps->p && (q + 1 >= ps->end || q[1] != ':')) {
            e->labels = ptx_grow(e->labels, &e->caplabels, e->nlabels + 1, sizeof *e->labels);
            snprintf(e->labels[e->nlabels].name, sizeof e->labels[0].name, "%.*s", (int)(q - ps->p), ps->p);
            e->labels[e->nlabels++].pc = e->ninsns;
            ps->p = q + 1;
            continue;
        }
        if (!statement(ps, buf, sizeof buf)) {
            ok = 0;
            break;
        }
        char *s = trim(buf);
        if (!strncmp(s, ".reg", 4)) {
            if (!reg_decl(&c, s + 4)) {
                ok = 0;
                break;
            }
            continue;
        }
        if (!strncmp(s, ".local", 6)) {
            char *br = strchr(s, '[');
            e->local_bytes += br ? (unsigned)strtoul(br + 1, NULL, 10) : 8;
            char *n = br ? br : s + strlen(s);
            *n = 0;
            char *last = strrchr(trim(s), ' ');
            if (last) {
                m->vars = ptx_grow(m->vars, &m->capvars, m->nvars + 1, sizeof *m->vars);
                PtxVar *v = &m->vars[m->nvars++];
                memset(v, 0, sizeof *v);
                snprintf(v->name, sizeof v->name, "%s", last + 1);
                v->local = 1;
            }
            continue;
        }
        if (!strncmp(s, ".shared", 7) || !strncmp(s, ".global", 7) || !strncmp(s, ".const", 6)) {
            if (!var_decl(ps, s)) {
                ok = 0;
                break;
            }
            continue;
        }
        if (s[0] == '.' || !*s)
            continue; /* .pragma and the like */
        if (!add_insn(&c, s)) {
            ok = 0;
            break;
        }
    }
    if (ok) /* labels */
        for (unsigned i = 0; i < c.nfix; i++) {
            unsigned l = 0;
            while (l < e->nlabels && strcmp(e->labels[l].name, c.fix[i].name) != 0)
                l++;
            if (l == e->nlabels) {
                perr(ps, "entry %s: unknown name '%s'", e->name, c.fix[i].name);
                ok = 0;
                break;
            }
            e->insns[c.fix[i].insn].o[c.fix[i].op].imm = e->labels[l].pc;
        }
    e->nslots = regs.nslots;
    free(regs.d);
    free(c.fix);
    if (!ok)
        return 0;
    m->nentries++;
    return 1;
}

PtxEmuModule *ptx_emu_parse(const char *ptx, char *err, size_t errlen)
{
    PtxEmuModule *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->dynamic_align = 16;
    Parser ps = {m, ptx, ptx + strlen(ptx), 1, err, errlen, 0};
    char buf[16384];
    while (!ps.failed) {
        skip_space(&ps);
        if (ps.p >= ps.end)
            break;
        if (!strncmp(ps.p, ".version", 8) || !strncmp(ps.p, ".target", 7) || !strncmp(ps.p, ".address_size", 13) ||
            !strncmp(ps.p, ".file", 5) || !strncmp(ps.p, ".loc", 4)) {
            skip_line(&ps);
            continue;
        }
        if (!strncmp(ps.p, ".section", 8)) { /* debug sections: skip the braces */
            const char *b = strchr(ps.p, '{');
            int depth = 0;
            for (const char *q = b ? b : ps.end; q < ps.end; q++) {
                ps.line += *q == '\n';
                depth += *q == '{';
                if (*q == '}' && --depth == 0) {
                    ps.p = q + 1;
                    break;
                }
                if (q + 1 == ps.end)
                    ps.p = ps.end;
            }
            if (!b)
                ps.p = ps.end;
            continue;
        }
        /* a declaration up to ';', or an entry's head up to '{' */
        const char *semi = strchr(ps.p, ';'), *brace = strchr(ps.p, '{');
        const char *ent = strstr(ps.p, ".entry");
        if (ent && brace && (!semi || ent < semi) && ent < brace) {
            size_t n = (size_t)(brace - ps.p);
            if (n >= sizeof buf) {
                perr(&ps, "entry head too long");
                break;
            }
            memcpy(buf, ps.p, n);
            buf[n] = 0;
            for (const char *q = ps.p; q < brace; q++)
                ps.line += *q == '\n';
            ps.p = brace + 1;
            if (!entry(&ps, buf))
                break;
            continue;
        }
        if (!strncmp(ps.p, ".func", 5) || (strstr(ps.p, ".func") && semi && strstr(ps.p, ".func") < semi)) {
            perr(&ps, "functions (.func) are not run by the interpreter");
            break;
        }
        if (!statement(&ps, buf, sizeof buf))
            break;
        if (!var_decl(&ps, buf))
            break;
    }
    if (ps.failed) {
        ptx_emu_free(m);
        return NULL;
    }
    return m;
}

void ptx_emu_free(PtxEmuModule *m)
{
    if (!m)
        return;
    for (unsigned i = 0; i < m->nentries; i++) {
        free(m->entries[i].insns);
        free(m->entries[i].params);
        free(m->entries[i].labels);
    }
    for (unsigned i = 0; i < m->nvars; i++)
        free(m->vars[i].host);
    free(m->entries);
    free(m->vars);
    free(m->vec);
    free(m);
}
