/*
 * The byte-driven kernel generator of fuzz_compile (see gen_kernel.h).
 * It tracks the type of every value it defined and picks operands only of
 * the types the op accepts (docs/TIR.md), so almost everything it writes
 * parses and verifies; what does not is skipped by the caller.
 */
#include "gen_kernel.h"

#include <string.h>

enum { MAX_VALS = 256, MAX_OPS = 48, MAX_DEPTH = 3 };

typedef struct {
    int elem; /* TirElem */
    uint32_t r, c;
    int scalar;
    int id;   /* printed as %v<id>: unique in the kernel, even across loop scopes */
} Val;

typedef struct {
    const uint8_t *p;
    size_t n, i;
    StrBuf *out;
    Val v[MAX_VALS];
    int nv, next_name, threads, depth, ops;
    int runnable, exact; /* gen_kernel_runnable() */
} G;

static const char *const ENAME[] = {"", "i32", "i64", "f16", "bf16", "f32"};
static const char *const VIEW[] = {"", "%vi", "%vl", "%vh", "%vb", "%vf"};

static unsigned pick(G *g, unsigned n) { return n ? (g->i < g->n ? g->p[g->i++] : 0) % n : 0; }
static int is_float(int e) { return e >= ELEM_F16; }

static int add_val(G *g, int elem, uint32_t r, uint32_t c, int scalar)
{
    if (g->nv == MAX_VALS)
        return -1;
    g->v[g->nv] = (Val){elem, r, c, scalar, g->next_name++};
    return g->nv++;
}

static void name(G *g, int k) { sb_printf(g->out, "%%v%d", g->v[k].id); }

/* A tile shape of at most 64 elements per thread. */
static void shape(G *g, uint32_t *r, uint32_t *c)
{
    static const uint32_t dims[] = {1, 2, 4, 8, 16, 32, 64, 128};
    for (;;) {
        *r = dims[pick(g, 8)];
        *c = dims[pick(g, 8)];
        if (*r * *c <= 64u * (uint32_t)g->threads || *r * *c <= 64)
            return;
    }
}

static int find(G *g, int elem, uint32_t r, uint32_t c, int scalar)
{
    int start = (int)pick(g, (unsigned)g->nv + 1);
    for (int k = 0; k < g->nv; k++) {
        int j = (start + k) % g->nv;
        const Val *x = &g->v[j];
        if (x->scalar == scalar && (elem < 0 || x->elem == elem) && (scalar || (x->r == r && x->c == c)))
            return j;
    }
    return -1;
}

static int any_tile(G *g)
{
    int start = (int)pick(g, (unsigned)g->nv + 1);
    for (int k = 0; k < g->nv; k++) {
        int j = (start + k) % g->nv;
        if (!g->v[j].scalar)
            return j;
    }
    return -1;
}

/* an index operand: a literal or an i32 scalar */
static void index_operand(G *g)
{
    static const char *const lits[] = {"0", "1", "7", "64", "-3", "100000"};
    int s = pick(g, 3) == 0 ? find(g, ELEM_I32, 0, 0, 1) : -1;
    if (s >= 0)
        name(g, s);
    else
        sb_puts(g->out, lits[pick(g, 6)]);
}

static int emit_load(G *g, int elem)
{
    uint32_t r, c;
    shape(g, &r, &c);
    int k = add_val(g, elem, r, c, 0);
    if (k < 0)
        return -1;
    sb_puts(g->out, "  "), name(g, k);
    if (g->runnable && elem == ELEM_F32 && pick(g, 3) == 0) /* the batched view: batch 0 or 1 (or none) */
        sb_printf(g->out, " = load %%vf3[%d, ", (int)pick(g, 3) - (int)pick(g, 2));
    else
        sb_printf(g->out, " = load %s[", VIEW[elem]);
    index_operand(g), sb_puts(g->out, ", "), index_operand(g);
    sb_printf(g->out, "] : tile<%ux%ux%s>", r, c, ENAME[elem]);
    if (pick(g, 4) == 0)
        sb_puts(g->out, is_float(elem) ? " {padding = -1.5}" : " {padding = 3}");
    sb_puts(g->out, "\n");
    return k;
}

static void emit_op(G *g);

static void emit_for(G *g)
{
    int init = any_tile(g);
    if (init < 0 || g->depth >= MAX_DEPTH)
        return;
    Val t = g->v[init];
    /* the bound is chosen before the body's names exist */
    int bound = pick(g, 2) ? find(g, ELEM_I32, 0, 0, 1) : -1, bound_id = bound >= 0 ? g->v[bound].id : -1;
    int result_id = g->next_name++, base = g->nv;
    int iv = add_val(g, ELEM_I32, 0, 0, 1), carried = add_val(g, t.elem, t.r, t.c, 0);
    if (iv < 0 || carried < 0) {
        g->nv = base;
        return;
    }
    sb_printf(g->out, "  %%v%d = for ", result_id), name(g, iv), sb_puts(g->out, " = 0 to ");
    if (bound_id >= 0 && !g->runnable)
        sb_printf(g->out, "%%v%d", bound_id);
    else
        sb_printf(g->out, "%u", pick(g, g->runnable ? 49 : 200)); /* runnable: at most 6 steps of 8 */
    sb_printf(g->out, " step %d iter(", (int)pick(g, 4) * 16 - 8), name(g, carried), sb_puts(g->out, " = ");
    name(g, init), sb_puts(g->out, ") {\n");
    g->depth++;
    for (unsigned n = 1 + pick(g, 5); n > 0; n--)
        emit_op(g);
    g->depth--;
    int y = find(g, t.elem, t.r, t.c, 0);
    sb_puts(g->out, "  yield "), name(g, y >= 0 ? y : carried), sb_puts(g->out, "\n  }\n");
    g->nv = base; /* the body's values are out of scope now; the result is not */
    if (g->nv < MAX_VALS)
        g->v[g->nv++] = (Val){t.elem, t.r, t.c, 0, result_id};
}

/* A loop carrying a tile and an i32 sum of the induction variable (usable as an index after
 * it), from a nonzero lower bound (runnable kernels only). */
static void emit_for2(G *g)
{
    int init = any_tile(g), sinit = find(g, ELEM_I32, 0, 0, 1);
    if (init < 0 || sinit < 0 || g->depth >= MAX_DEPTH)
        return;
    Val t = g->v[init];
    int r1 = g->next_name++, r2 = g->next_name++, base = g->nv;
    int iv = add_val(g, ELEM_I32, 0, 0, 1), ct = add_val(g, t.elem, t.r, t.c, 0), cs = add_val(g, ELEM_I32, 0, 0, 1);
    if (iv < 0 || ct < 0 || cs < 0) {
        g->nv = base;
        return;
    }
    int lo = (int)pick(g, 20) - 5;
    sb_printf(g->out, "  %%v%d, %%v%d = for ", r1, r2), name(g, iv);
    sb_printf(g->out, " = %d to %d step %d iter(", lo, lo + (int)pick(g, 40), 8 + 8 * (int)pick(g, 2));
    name(g, ct), sb_puts(g->out, " = "), name(g, init), sb_puts(g->out, ", "), name(g, cs), sb_puts(g->out, " = ");
    name(g, sinit), sb_puts(g->out, ") {\n");
    g->depth++;
    for (unsigned n = 1 + pick(g, 4); n > 0; n--)
        emit_op(g);
    g->depth--;
    int y = find(g, t.elem, t.r, t.c, 0), sum = g->next_name++;
    sb_printf(g->out, "  %%v%d = add ", sum), name(g, cs), sb_puts(g->out, ", "), name(g, iv);
    sb_puts(g->out, "\n  yield "), name(g, y >= 0 ? y : ct), sb_printf(g->out, ", %%v%d\n  }\n", sum);
    g->nv = base;
    if (g->nv + 2 <= MAX_VALS) {
        g->v[g->nv++] = (Val){t.elem, t.r, t.c, 0, r1};
        g->v[g->nv++] = (Val){ELEM_I32, 0, 0, 1, r2};
    }
}

static void emit_op(G *g)
{
    static const char *const bin[] = {"add", "sub", "mul", "div", "min", "max", "rem", "mask_nonfinite"};
    static const char *const un[] = {"neg", "abs", "exp", "sqrt"};
    static const char *const prec[] = {"", " {precision = ieee}", " {precision = tf32-trunc}",
                                       " {precision = tf32-rna}", " {precision = tf32-rne}",
                                       " {precision = 3xtf32}", " {precision = 3xtf32, accumulate = rn}",
                                       " {accumulate = rn}"};
    if (g->ops++ >= MAX_OPS)
        return;
    int a = any_tile(g), k;
    unsigned what = pick(g, g->runnable ? 16 : 14); /* 14, 15: the runnable kernels' only */
    if (a < 0 || what == 0) {
        emit_load(g, 1 + (int)pick(g, 5));
        return;
    }
    Val t = g->v[a];
    switch (what) {
    case 1: case 2: { /* binary, with a tile of the same type or a scalar */
        const char *op = bin[pick(g, 8)];
        if ((!strcmp(op, "rem") && is_float(t.elem)) || (!strcmp(op, "mask_nonfinite") && !is_float(t.elem)))
            op = "add";
        int b = find(g, t.elem, t.r, t.c, 0);
        int s = t.elem == ELEM_F16 || t.elem == ELEM_BF16 || strcmp(op, "mask_nonfinite") == 0 ? -1
                                                                                             : find(g, t.elem, 0, 0, 1);
        if ((k = add_val(g, t.elem, t.r, t.c, 0)) < 0)
            return;
        sb_puts(g->out, "  "), name(g, k), sb_printf(g->out, " = %s ", op), name(g, a), sb_puts(g->out, ", ");
        if (s >= 0 && pick(g, 2))
            name(g, s);
        else
            name(g, b);
        sb_puts(g->out, "\n");
        return;
    }
    case 3: { /* unary */
        const char *op = un[pick(g, 4)];
        if (!is_float(t.elem) && (op[0] == 'e' || op[0] == 's'))
            op = "neg";
        if ((k = add_val(g, t.elem, t.r, t.c, 0)) >= 0)
            sb_puts(g->out, "  "), name(g, k), sb_printf(g->out, " = %s ", op), name(g, a), sb_puts(g->out, "\n");
        return;
    }
    case 4: { /* cast */
        int e = 1 + (int)pick(g, 5);
        if ((k = add_val(g, e, t.r, t.c, 0)) >= 0)
            sb_puts(g->out, "  "), name(g, k), sb_puts(g->out, " = cast "), name(g, a),
                sb_printf(g->out, " : tile<%ux%ux%s>\n", t.r, t.c, ENAME[e]);
        return;
    }
    case 5: { /* reduce, then broadcast back */
        int axis = (int)pick(g, 2);
        uint32_t r = axis ? t.r : 1, c = axis ? 1 : t.c;
        if ((k = add_val(g, t.elem, r, c, 0)) < 0)
            return;
        sb_puts(g->out, "  "), name(g, k), sb_printf(g->out, " = reduce_%s ", pick(g, 2) && !g->exact ? "sum" : "max");
        name(g, a), sb_printf(g->out, " {axis = %d}\n", axis);
        int b = add_val(g, t.elem, t.r, t.c, 0);
        if (b >= 0)
            sb_puts(g->out, "  "), name(g, b), sb_puts(g->out, " = broadcast "), name(g, k),
                sb_printf(g->out, " : tile<%ux%ux%s>\n", t.r, t.c, ENAME[t.elem]);
        return;
    }
    case 6: case 7: { /* dot: a is MxK; find or load a KxN of its type */
        if (!is_float(t.elem) || g->exact)
            return;
        static const uint32_t ns[] = {1, 8, 16, 32, 64};
        uint32_t n = ns[pick(g, 5)];
        if ((uint64_t)t.r * n > 64u * (uint32_t)g->threads && t.r * n > 64)
            return;
        int b = find(g, t.elem, t.c, n, 0);
        if (b < 0 && (uint64_t)t.c * n > 64u * (uint32_t)g->threads && t.c * n > 64)
            return;
        if (b < 0) {
            if ((b = add_val(g, t.elem, t.c, n, 0)) < 0)
                return;
            sb_puts(g->out, "  "), name(g, b), sb_printf(g->out, " = load %s[0, 0] : tile<%ux%ux%s>\n",
                                                         VIEW[t.elem], t.c, n, ENAME[t.elem]);
        }
        int c = find(g, ELEM_F32, t.r, n, 0);
        if (c < 0) {
            if ((c = add_val(g, ELEM_F32, t.r, n, 0)) < 0)
                return;
            sb_puts(g->out, "  "), name(g, c), sb_printf(g->out, " = zeros : tile<%ux%uxf32>\n", t.r, n);
        }
        if ((k = add_val(g, ELEM_F32, t.r, n, 0)) < 0)
            return;
        unsigned p = pick(g, 8);
        if (t.elem != ELEM_F32) /* precision is for f32 inputs only */
            p = p == 7 ? 7 : 0;
        sb_puts(g->out, "  "), name(g, k), sb_puts(g->out, " = dot "), name(g, a), sb_puts(g->out, ", ");
        name(g, b), sb_puts(g->out, ", "), name(g, c), sb_printf(g->out, "%s\n", prec[p]);
        return;
    }
    case 8: /* round_tf32 */
        if (t.elem == ELEM_F32 && (k = add_val(g, t.elem, t.r, t.c, 0)) >= 0) {
            static const char *const modes[] = {"trunc", "rna", "rne"};
            sb_puts(g->out, "  "), name(g, k), sb_puts(g->out, " = round_tf32 "), name(g, a),
                sb_printf(g->out, " {mode = %s}\n", modes[pick(g, 3)]);
        }
        return;
    case 9: /* a constant tile */
        if ((k = add_val(g, t.elem, t.r, t.c, 0)) >= 0) {
            sb_puts(g->out, "  "), name(g, k);
            unsigned w = pick(g, 3);
            if (w == 0)
                sb_printf(g->out, " = zeros : tile<%ux%ux%s>\n", t.r, t.c, ENAME[t.elem]);
            else if (w == 1)
                sb_printf(g->out, " = full %s : tile<%ux%ux%s>\n", is_float(t.elem) ? "0.5" : "-2", t.r, t.c,
                          ENAME[t.elem]);
            else { /* splat of the f32 parameter: to a float tile of that type, else to f32 */
                g->v[k].elem = is_float(t.elem) ? t.elem : ELEM_F32;
                sb_printf(g->out, " = splat %%s : tile<%ux%ux%s>\n", t.r, t.c, ENAME[g->v[k].elem]);
            }
        }
        return;
    case 10: /* store */
        sb_printf(g->out, "  store "), name(g, a);
        if (g->runnable && t.elem == ELEM_F32 && pick(g, 3) == 0)
            sb_printf(g->out, ", %%vf3[%u, ", pick(g, 2));
        else
            sb_printf(g->out, ", %s[", VIEW[t.elem]);
        index_operand(g), sb_puts(g->out, ", "), index_operand(g), sb_puts(g->out, "]\n");
        return;
    case 11:
        emit_for(g);
        return;
    case 12: /* inline PTX on 32-bit elements */
        if (!g->runnable && (t.elem == ELEM_I32 || t.elem == ELEM_F32) && (k = add_val(g, t.elem, t.r, t.c, 0)) >= 0) {
            /* the last two are LLVM asm errors, which must come back as diagnostics */
            static const char *const tmpl[] = {"mov.b32 $0, $1;", "mov.b32 ${0}, ${1};",
                                               "{ .reg .b32 t; mov.b32 t, $1; mov.b32 $0, t; }",
                                               "mov.b32 $0, ${1:q};", "mov.b32 $0, ${1"};
            sb_puts(g->out, "  "), name(g, k), sb_printf(g->out, " = inline_ptx \"%s\" ", tmpl[pick(g, 5)]);
            name(g, a), sb_printf(g->out, " : tile<%ux%ux%s>\n", t.r, t.c, ENAME[t.elem]);
        }
        return;
    case 14: { /* fma, with a tile or a scalar (f32) as the addend */
        if (!is_float(t.elem))
            return;
        int b = find(g, t.elem, t.r, t.c, 0), c = t.elem == ELEM_F32 && pick(g, 2) ? find(g, t.elem, 0, 0, 1) : -1;
        if (c < 0)
            c = find(g, t.elem, t.r, t.c, 0);
        if ((k = add_val(g, t.elem, t.r, t.c, 0)) < 0)
            return;
        sb_puts(g->out, "  "), name(g, k), sb_puts(g->out, " = fma "), name(g, a), sb_puts(g->out, ", ");
        name(g, b), sb_puts(g->out, ", "), name(g, c), sb_puts(g->out, "\n");
        return;
    }
    case 15:
        emit_for2(g);
        return;
    default: { /* scalar arithmetic feeding indices */
        if ((k = add_val(g, ELEM_I32, 0, 0, 1)) < 0)
            return;
        sb_puts(g->out, "  "), name(g, k);
        unsigned w = pick(g, 3);
        if (w == 0)
            sb_printf(g->out, " = program_id %u\n", pick(g, 3));
        else if (w == 1)
            sb_printf(g->out, " = cdiv %%n, %u\n", 1 + pick(g, 64));
        else
            sb_printf(g->out, " = mul %%n, %d\n", (int)pick(g, 9) - 4);
        return;
    }
    }
}

/* gen_kernel_gemm's loop: C = A B over the first rows of X (A, M x K) and X again (B, K x N), K the
 * loop's bound, in one of the tiles the wgmma pipelines take on sm_90a (f32, or f16/bf16 from H
 * or B, BM = 16 x warps), its accumulator left in the value table for the ops after it. */
typedef struct {
    int e;
    uint32_t bm, bn, bk, warps;
} GemmTile;

static GemmTile pick_gemm(G *g)
{
    static const uint32_t f32t[][2] = {{128, 128}, {128, 256}, {64, 128}, {64, 256}, {128, 64}},
                          halft[][2] = {{128, 128}, {128, 256}, {64, 128}, {64, 64}};
    GemmTile t;
    t.e = pick(g, 3) == 0 ? (pick(g, 2) ? ELEM_F16 : ELEM_BF16) : ELEM_F32;
    if (t.e == ELEM_F32) {
        unsigned i = pick(g, 5);
        t.bm = f32t[i][0], t.bn = f32t[i][1], t.bk = 32;
        t.warps = pick(g, 2) || t.bm * t.bn > 16384 ? 8 : 4; /* 128x256 over 4 warps: 256 registers a thread */
    } else {
        unsigned i = pick(g, 4);
        t.bm = halft[i][0], t.bn = halft[i][1], t.bk = 64, t.warps = t.bm / 16;
    }
    return t;
}

static void emit_gemm(G *g, GemmTile t)
{
    static const char *const prec[] = {"", " {precision = ieee}", " {precision = tf32-trunc}",
                                       " {precision = tf32-rna}", " {precision = tf32-rne}", " {precision = 3xtf32}"};
    const char *p = t.e == ELEM_F16 ? "%H" : t.e == ELEM_BF16 ? "%B" : "%X";
    sb_printf(g->out, "  %%ga = view %s [%%n, 256] strides [256, 1]\n", p);
    sb_printf(g->out, "  %%gb = view %s [%%n, 256] strides [256, 1]\n", p);
    /* the index 0 as a value: a literal in the body would be an op there, and the pipeline
     * takes a body of two loads, the dot and the yield */
    sb_printf(g->out, "  %%gz = zeros : tile<%ux%uxf32>\n  %%g0 = const 0 : i32\n", t.bm, t.bn);
    int acc = add_val(g, ELEM_F32, t.bm, t.bn, 0);
    sb_puts(g->out, "  "), name(g, acc);
    sb_printf(g->out, " = for %%gk = 0 to %s step %u iter(%%gc = %%gz) {\n", pick(g, 2) ? "%n" : "256", t.bk);
    sb_printf(g->out, "    %%gta = load %%ga[%%g0, %%gk] : tile<%ux%ux%s>\n", t.bm, t.bk, ENAME[t.e]);
    sb_printf(g->out, "    %%gtb = load %%gb[%%gk, %%g0] : tile<%ux%ux%s>\n", t.bk, t.bn, ENAME[t.e]);
    sb_printf(g->out, "    %%gd = dot %%gta, %%gtb, %%gc%s\n    yield %%gd\n  }\n",
              t.e == ELEM_F32 ? prec[pick(g, 6)] : "");
}

static void generate(const uint8_t *data, size_t size, StrBuf *out, int runnable, int exact, int gemm)
{
    static const unsigned warps[] = {1, 2, 4, 8, 16};
    G g = {.p = data, .n = size, .out = out, .runnable = runnable, .exact = exact};
    GemmTile gt = {0};
    if (gemm)
        gt = pick_gemm(&g);
    unsigned w = gemm ? gt.warps : warps[pick(&g, 5)];
    g.threads = (int)w * 32;
    sb_printf(out, "kernel @gen(%%I: ptr<i32>, %%L: ptr<i64>, %%H: ptr<f16>, %%B: ptr<bf16>, %%X: ptr<f32>, "
                   "%%s: f32, %%n: i32) warps(%u) {\n", w);
    static const char *const vnames[] = {"%vi", "%vl", "%vh", "%vb", "%vf"};
    static const char *const ptrs[] = {"%I", "%L", "%H", "%B", "%X"};
    /* runnable: the n x 256 elements seen another way too (transposed, every other column, a
     * column short), always inside them */
    static const char *const shapes[] = {"[%n, 256] strides [256, 1]", "[256, %n] strides [1, 256]",
                                         "[%n, 128] strides [256, 2]", "[%n, 255] strides [256, 1]"};
    for (int e = 0; e < 5; e++)
        sb_printf(out, "  %s = view %s %s\n", vnames[e], ptrs[e], shapes[runnable ? pick(&g, 4) : 0]);
    if (runnable) /* X's elements again as two batches (rank 3), inside them for n >= 1 */
        sb_puts(out, "  %vf3 = view %X [2, 128, %n] strides [128, 1, 256]\n");
    /* %s, the f32 parameter, is value 0 of the table for splats */
    add_val(&g, ELEM_F32, 0, 0, 1);
    sb_puts(out, "  %v0 = add %s, 1.0\n");
    if (gemm) /* the loop first: a load before it would keep it from the pipeline */
        emit_gemm(&g, gt);
    else
        emit_load(&g, ELEM_F32);
    while (g.i < g.n && g.ops < MAX_OPS)
        emit_op(&g);
    int last = any_tile(&g);
    if (last >= 0) /* keep the result alive */
        sb_puts(out, "  store "), name(&g, last), sb_printf(out, ", %s[0, 0]\n", VIEW[g.v[last].elem]);
    sb_puts(out, "}\n");
}

void gen_kernel(const uint8_t *data, size_t size, StrBuf *out) { generate(data, size, out, 0, 0, 0); }

void gen_kernel_runnable(const uint8_t *data, size_t size, int exact, StrBuf *out)
{
    generate(data, size, out, 1, exact, 0);
}

void gen_kernel_gemm(const uint8_t *data, size_t size, StrBuf *out) { generate(data, size, out, 1, 0, 1); }
