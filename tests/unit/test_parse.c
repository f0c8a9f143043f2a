/*
 * Unit tests of the .tir front end: parser (ir/parse.c), printer
 * (ir/print.c) and per-instruction typing rules (ir/typecheck.c).
 *
 * - the examples of docs/TIR.md and DESIGN.md section 3 parse into the IR
 *   shape the rest of the compiler relies on (values, blocks, consts);
 * - print(parse(print(m))) == print(m) on hand-written and generated kernels;
 * - each malformed input gives exactly one error, at the right line:col;
 * - no input crashes or leaks: every prefix of a valid file, random bytes,
 *   random mutations, deep nesting, huge numbers (run under ASan/valgrind);
 * - the typing rules reject what docs/TIR.md forbids.
 * Sources are copied into exact-size buffers without a NUL, so a read past
 * `len` is caught by AddressSanitizer.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

typedef struct {
    TirModule *m;
    Diag d;
    char *src;
    int nerr;
} Parsed;

static Parsed parse_n(const char *text, size_t len)
{
    Parsed r;
    r.src = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(r.src);
    memcpy(r.src, text, len);
    r.m = tir_module_new("t.tir");
    ck_assert_ptr_nonnull(r.m);
    diag_init(&r.d, "t.tir", r.src, len);
    r.nerr = tir_parse(r.m, r.src, len, &r.d);
    return r;
}

static Parsed parse(const char *text) { return parse_n(text, strlen(text)); }

static const char *log_of(Parsed *r) { return r->d.log.data ? r->d.log.data : ""; }

static void done(Parsed *r)
{
    diag_free(&r->d);
    tir_module_free(r->m);
    free(r->src);
}

static char *print_module(const TirModule *m)
{
    StrBuf b;
    sb_init(&b);
    tir_print(m, &b);
    ck_assert(!b.oom);
    return sb_take(&b);
}

/* Parses text (must be valid), prints it, parses the print, prints again:
 * the two prints must be equal. Returns the first print. */
static char *round_trip(const char *text)
{
    Parsed a = parse(text);
    ck_assert_msg(a.nerr == 0, "parse failed:\n%s", log_of(&a));
    char *p1 = print_module(a.m);
    Parsed b = parse(p1);
    ck_assert_msg(b.nerr == 0, "reparse failed:\n%s\n--- printed:\n%s", log_of(&b), p1);
    char *p2 = print_module(b.m);
    ck_assert_msg(strcmp(p1, p2) == 0, "not a fixed point:\n%s\n--- vs:\n%s", p1, p2);
    free(p2);
    done(&a);
    done(&b);
    return p1;
}

static const char *SEED =
    "// C = A @ B on one 64x64 tile: the kernel of the motivating report.\n"
    "kernel @seed(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>) grid(1, 1) warps(4) {\n"
    "  %va = view %A [64, 64] strides [64, 1]\n"
    "  %vb = view %B [64, 64] strides [64, 1]\n"
    "  %vc = view %C [64, 64] strides [64, 1]\n"
    "  %a = load %va[0, 0] : tile<64x64xf32>\n"
    "  %b = load %vb[0, 0] : tile<64x64xf32>\n"
    "  %z = zeros : tile<64x64xf32>\n"
    "  %c = dot %a, %b, %z {precision = tf32-rna} : tile<64x64xf32>\n"
    "  store %c, %vc[0, 0]\n"
    "}\n";

static const char *MATMUL =
    "// C = A @ B for any M, N, K: one 128x128 tile of C per program.\n"
    "kernel @matmul(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>,\n"
    "               %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) warps(8) {\n"
    "  %pid0 = program_id 0\n"
    "  %pid1 = program_id 1\n"
    "  %m0 = mul %pid0, 128\n"
    "  %n0 = mul %pid1, 128\n"
    "  %va = view %A [%M, %K] strides [%lda, 1]\n"
    "  %vb = view %B [%K, %N] strides [%ldb, 1]\n"
    "  %vc = view %C [%M, %N] strides [%ldc, 1]\n"
    "  %z = zeros : tile<128x128xf32>\n"
    "  %acc = for %k = 0 to %K step 32 iter(%c = %z) {\n"
    "    %a = load %va[%m0, %k] : tile<128x32xf32>     // elements outside the view read as 0\n"
    "    %b = load %vb[%k, %n0] : tile<32x128xf32>\n"
    "    %d = dot %a, %b, %c : tile<128x128xf32>\n"
    "    yield %d\n"
    "  }\n"
    "  store %acc, %vc[%m0, %n0]                          // elements outside the view are not written\n"
    "}\n";

/* Every op, attributes, f16/bf16, i64 views, special floats, two carried
 * values, nested loops, a loop carrying nothing. */
static const char *ALL_OPS =
    "kernel @all(%A: ptr<f32>, %H: ptr<f16>, %G: ptr<bf16>, %I: ptr<i32>, %n: i32, %n64: i64, %s: f32) "
    "grid(4, 2, 1) warps(16) {\n"
    "  %p = program_id 2\n"
    "  %np = num_programs 0\n"
    "  %q = cdiv %n, 64\n"
    "  %r = rem %q, 3\n"
    "  %mn = min %r, %np\n"
    "  %mx = max %mn, -7\n"
    "  %ab = abs %mx\n"
    "  %ng = neg %ab\n"
    "  %dv = div %ng, 2\n"
    "  %c5 = const 5 : i64\n"
    "  %big = add %n64, 0x7fffffffffffffff\n"
    "  %w = add %c5, %big\n"
    "  %v3 = view %A [4, %n64, 8] strides [%w, 8, 1]\n"
    "  %t3 = load %v3[1, 0, 0] {padding = -inf} : tile<16x8xf32>\n"
    "  %vh = view %H [%n, %n] strides [%n, 1]\n"
    "  %vg = view %G [%n, %n] strides [%n, 1]\n"
    "  %vi = view %I [%n, %n] strides [%n, 1]\n"
    "  %th = load %vh[0, 0] : tile<16x16xf16>\n"
    "  %tg = load %vg[0, 0] {padding = 1.5} : tile<16x16xbf16>\n"
    "  %ti = load %vi[%dv, 0] {padding = -1} : tile<16x16xi32>\n"
    "  %acc = zeros : tile<16x16xf32>\n"
    "  %d1 = dot %th, %th, %acc\n"
    "  %tgc = cast %tg : tile<16x16xf16>\n"
    "  %d2 = dot %tgc, %th, %d1 : tile<16x16xf32>\n"
    "  %f = full 0.25 : tile<16x16xf32>\n"
    "  %fi = full -3 : tile<16x16xi32>\n"
    "  %sp = splat %s : tile<16x16xf32>\n"
    "  %sh = splat 2.5 : tile<16x16xf16>\n"
    "  %e = exp %f\n"
    "  %sq = sqrt %e\n"
    "  %fm = fma %sq, %sp, %d2\n"
    "  %fm2 = fma %fm, 3, %s\n"
    "  %rt = round_tf32 %fm2 {mode = rne}\n"
    "  %lo = sub %fm2, %rt\n"
    "  %mk = mask_nonfinite %lo, %fm2\n"
    "  %rs = reduce_sum %mk {axis = 0} : tile<1x16xf32>\n"
    "  %rm = reduce_max %mk {axis = 1}\n"
    "  %bc = broadcast %rs : tile<16x16xf32>\n"
    "  %bm = broadcast %rm : tile<16x16xf32>\n"
    "  %ci = cast %ti : tile<16x16xf32>\n"
    "  %x = inline_ptx \"max.f32 $0, $1, $2;\\t// \\\"quoted\\\" \\\\ \\n\" %bc, %bm : tile<16x16xf32>\n"
    "  %xs = inline_ptx \"mov.b32 $0, 42;\" : i32\n"
    "  %nan = const nan : f32\n"
    "  %nz = const -0.0 : f32\n"
    "  %tiny = const 1e-45 : f32\n"
    "  %huge = const 3.40282347e38 : f32\n"
    "  %bits = const 0xffc00001 : f32\n"
    "  %m1 = const 0xffffffff : i32\n"
    "  %o1, %o2 = for %i = %r to %n step %q iter(%a1 = %x, %a2 = %ci) {\n"
    "    %j = add %i, 1\n"
    "    %s1 = add %a1, %a2\n"
    "    %o3 = for %jj = 0 to %j step 1 iter(%a3 = %s1) {\n"
    "      %s4 = mul %a3, 0.5\n"
    "      yield %s4\n"
    "    }\n"
    "    for %kk = 0 to 4 step 1 {\n"
    "      store %ti, %vi[%kk, %j]\n"
    "      yield\n"
    "    }\n"
    "    yield %o3, %a2\n"
    "  }\n"
    "  store %o1, %v3[0, %n, 0]\n"
    "  %dt = dot %o1, %o2, %o1 {precision = 3xtf32}\n"
    "  store %dt, %v3[%n64, 0, 0]\n"
    "}\n";

static char *all_ops(void) { return strdup(ALL_OPS); }

/* ---- structure ---- */

START_TEST(seed_structure)
{
    Parsed r = parse(SEED);
    ck_assert_msg(r.nerr == 0, "%s", log_of(&r));
    TirModule *m = r.m;
    ck_assert_uint_eq(m->nkernels, 1);
    const TirKernel *k = &m->kernels[0];
    ck_assert_str_eq(tir_str(m, k->name), "seed");
    ck_assert_uint_eq(k->grid[0], 1);
    ck_assert_uint_eq(k->grid[1], 1);
    ck_assert_uint_eq(k->grid[2], 0);
    ck_assert_uint_eq(k->warps, 4);
    ck_assert_uint_eq(k->nparams, 3);
    for (uint32_t j = 0; j < 3; j++) {
        const TirValue *v = &m->values[m->pool[k->params + j]];
        ck_assert_int_eq(v->kind, VAL_PARAM);
        ck_assert_uint_eq(v->def, 0);
        ck_assert_uint_eq(v->index, j);
        ck_assert_int_eq(v->type.kind, TY_PTR);
        ck_assert_int_eq(v->type.elem, ELEM_F32);
    }
    const TirBlock *b = &m->blocks[k->body];
    ck_assert_uint_eq(b->parent, 0);
    /* 3 views with 4 literals, 2 loads with 2, a store with 2: 18 consts */
    ck_assert_uint_eq(b->ninsts, 8 + 18);
    const uint32_t *ins = tir_block_insts(m, b);
    int nconst = 0;
    for (uint32_t j = 0; j < b->ninsts; j++) {
        const TirInst *in = &m->insts[ins[j]];
        if (in->op != OP_CONST)
            continue;
        nconst++;
        ck_assert_int_eq(m->values[in->result].name, 0);
        ck_assert(tir_type_eq(in->type, tir_scalar(ELEM_I32)));
    }
    ck_assert_int_eq(nconst, 18);
    /* the first view: its four consts come just before it */
    const TirInst *v0 = &m->insts[ins[4]];
    ck_assert_int_eq(v0->op, OP_VIEW);
    ck_assert_int_eq(v0->ival, 2);
    ck_assert_uint_eq(v0->nargs, 5);
    ck_assert_uint_eq(v0->loc.line, 3);
    ck_assert_uint_eq(v0->loc.col, 9);
    for (uint32_t j = 1; j < 5; j++)
        ck_assert_uint_eq(tir_args(m, v0)[j], m->insts[ins[j - 1]].result);
    ck_assert_int_eq(m->insts[ins[0]].i64, 64);
    ck_assert_int_eq(m->insts[ins[3]].i64, 1);
    ck_assert_int_eq(m->values[v0->result].type.kind, TY_VIEW);
    ck_assert_int_eq(m->values[v0->result].type.rank, 2);
    ck_assert_str_eq(tir_str(m, m->values[v0->result].name), "va");
    const TirInst *dot = &m->insts[ins[b->ninsts - 4]];
    ck_assert_int_eq(dot->op, OP_DOT);
    ck_assert_int_eq(dot->ival, PREC_TF32_RNA);
    ck_assert(tir_type_eq(dot->type, tir_tile(ELEM_F32, 64, 64)));
    ck_assert_uint_eq(dot->nresults, 1);
    ck_assert_int_eq(m->values[dot->result].kind, VAL_RESULT);
    ck_assert_uint_eq(m->values[dot->result].def, ins[b->ninsts - 4]);
    /* the store's two index consts come right before it */
    ck_assert_int_eq(m->insts[ins[b->ninsts - 3]].op, OP_CONST);
    ck_assert_int_eq(m->insts[ins[b->ninsts - 2]].op, OP_CONST);
    const TirInst *st = &m->insts[ins[b->ninsts - 1]];
    ck_assert_int_eq(st->op, OP_STORE);
    ck_assert_uint_eq(st->nargs, 4);
    ck_assert_uint_eq(st->result, 0);
    ck_assert_int_eq(st->type.kind, TY_NONE);
    done(&r);
}
END_TEST

START_TEST(matmul_structure)
{
    Parsed r = parse(MATMUL);
    ck_assert_msg(r.nerr == 0, "%s", log_of(&r));
    TirModule *m = r.m;
    const TirKernel *k = &m->kernels[0];
    ck_assert_uint_eq(k->nparams, 9);
    ck_assert_uint_eq(k->warps, 8);
    ck_assert_uint_eq(k->grid[0], 0);
    const TirBlock *b = &m->blocks[k->body];
    const uint32_t *ins = tir_block_insts(m, b);
    uint32_t fi = 0;
    for (uint32_t j = 0; j < b->ninsts; j++)
        if (m->insts[ins[j]].op == OP_FOR)
            fi = ins[j];
    ck_assert_uint_ne(fi, 0);
    const TirInst *f = &m->insts[fi];
    ck_assert_uint_eq(f->nargs, 4);
    ck_assert_uint_eq(f->nresults, 1);
    ck_assert_int_eq(f->type.kind, TY_NONE);
    /* bounds: literal 0 and 32 become i32 consts, %K is the parameter */
    ck_assert_int_eq(m->insts[m->values[tir_args(m, f)[0]].def].op, OP_CONST);
    ck_assert_uint_eq(tir_args(m, f)[1], m->pool[k->params + 5]);
    const TirValue *res = &m->values[f->result];
    ck_assert_str_eq(tir_str(m, res->name), "acc");
    ck_assert_int_eq(res->kind, VAL_RESULT);
    ck_assert_uint_eq(res->def, fi);
    ck_assert_uint_eq(res->index, 0);
    ck_assert(tir_type_eq(res->type, tir_tile(ELEM_F32, 128, 128)));
    const TirBlock *body = &m->blocks[f->body];
    ck_assert_uint_eq(body->parent, fi);
    ck_assert_uint_eq(body->nargs, 2);
    const TirValue *iv = &m->values[tir_block_args(m, body)[0]];
    const TirValue *cv = &m->values[tir_block_args(m, body)[1]];
    ck_assert_int_eq(iv->kind, VAL_BLOCK_ARG);
    ck_assert_uint_eq(iv->def, f->body);
    ck_assert_uint_eq(iv->index, 0);
    ck_assert(tir_type_eq(iv->type, tir_scalar(ELEM_I32)));
    ck_assert_str_eq(tir_str(m, iv->name), "k");
    ck_assert_uint_eq(cv->index, 1);
    ck_assert_str_eq(tir_str(m, cv->name), "c");
    ck_assert(tir_type_eq(cv->type, tir_tile(ELEM_F32, 128, 128)));
    /* body: 2 loads (no literals), dot, yield; the yield is last */
    ck_assert_uint_eq(body->ninsts, 4);
    const TirInst *y = &m->insts[tir_block_insts(m, body)[3]];
    ck_assert_int_eq(y->op, OP_YIELD);
    ck_assert_uint_eq(y->nargs, 1);
    ck_assert_uint_eq(y->loc.line, 16);
    ck_assert_uint_eq(y->loc.col, 5);
    /* block lists are contiguous pool ranges: the kernel's is intact after the body's */
    ck_assert_uint_eq(m->insts[ins[b->ninsts - 1]].op, OP_STORE);
    /* the mul's literal 128 is an i32 const right before it */
    const TirInst *mul = &m->insts[ins[3]];
    ck_assert_int_eq(mul->op, OP_MUL);
    ck_assert_uint_eq(tir_args(m, mul)[1], m->insts[ins[2]].result);
    ck_assert_int_eq(m->insts[ins[2]].i64, 128);
    ck_assert_uint_eq(m->insts[ins[2]].loc.line, 6);
    ck_assert_uint_eq(m->insts[ins[2]].loc.col, 20);
    /* every instruction typechecks again on the finished module */
    for (uint32_t i = 1; i < m->ninsts; i++) {
        TirType t;
        ck_assert_int_eq(tir_check_inst(m, i, &t, &r.d), 0);
    }
    done(&r);
}
END_TEST

START_TEST(literal_types)
{
    Parsed r = parse("kernel @k(%x: i64, %f: f32, %p: ptr<f32>) {\n"
                     "  %a = add %x, 0xffffffffffffffff\n"
                     "  %b = mul %f, 3\n"
                     "  %v = view %p [%x, 2] strides [2, 1]\n"
                     "  %t = load %v[1, 2] {padding = 0x7fc00000} : tile<2x2xf32>\n"
                     "  %u = add %t, 0x3f800000\n"
                     "}\n");
    ck_assert_msg(r.nerr == 0, "%s", log_of(&r));
    TirModule *m = r.m;
    int seen = 0;
    for (uint32_t i = 1; i < m->ninsts; i++) {
        const TirInst *in = &m->insts[i];
        if (in->op != OP_CONST)
            continue;
        uint32_t user = i + 1;
        while (m->insts[user].op == OP_CONST)
            user++;
        switch (m->insts[user].op) {
        case OP_ADD:
            if (in->type.elem == ELEM_I64) {
                ck_assert_int_eq(in->i64, -1);
                seen |= 1;
            } else {
                ck_assert(in->type.elem == ELEM_F32 && in->fval == 1.0); /* the bit pattern */
                seen |= 2;
            }
            break;
        case OP_MUL:
            ck_assert(tir_type_eq(in->type, tir_scalar(ELEM_F32)) && in->fval == 3.0);
            seen |= 4;
            break;
        case OP_VIEW: /* another operand is i64: all literal extents/strides are i64 */
        case OP_LOAD: /* the indices are i32: the view's i64 operands are not indices */
            ck_assert_int_eq(in->type.elem, m->insts[user].op == OP_VIEW ? ELEM_I64 : ELEM_I32);
            seen |= m->insts[user].op == OP_VIEW ? 8 : 16;
            if (m->insts[user].op == OP_LOAD)
                ck_assert(m->insts[user].fval != m->insts[user].fval); /* padding NaN */
            break;
        default:
            ck_abort_msg("const before op %d", m->insts[user].op);
        }
    }
    ck_assert_int_eq(seen, 31);
    done(&r);
}
END_TEST

/* ---- printer ---- */

START_TEST(print_seed_exact)
{
    char *p = round_trip(SEED);
    /* the docs' example prints back as written, less the comment and the
     * default warps(4) */
    const char *want = strchr(SEED, '\n') + 1;
    char *want2 = strdup(want);
    char *w4 = strstr(want2, " warps(4)");
    memmove(w4, w4 + 9, strlen(w4 + 9) + 1);
    ck_assert_str_eq(p, want2);
    free(want2);
    free(p);
}
END_TEST

START_TEST(print_round_trips)
{
    char *all = all_ops();
    const char *srcs[] = {SEED, MATMUL, all,
                          "kernel @a() {\n}\nkernel @b(%x: i32) grid(7) warps(1) {\n  %y = add %x, %x\n}\n",
                          "kernel @c(%x: f32) {\n  %y = add %x, 1\n  %z = add %y, 1e10\n  %w = add %z, -1e-10\n"
                          "  %u = max %w, inf\n  %v = min %u, -inf\n  %n = add %v, nan\n}\n",
                          "kernel @y(%n: i32, %f: f32) {\n  %s, %t = for %i = 0 to %n step 1 iter(%a = %f, %b = %n) {\n"
                          "    %c = add %a, 1\n    yield 2.5, -3\n  }\n  %u = inline_ptx \"add.s32 $0, $1, $2;\" %t, 7 : i32\n"
                          "  %h = splat 1.5 : tile<2x2xbf16>\n  %z = zeros : tile<1x1xi64>\n"
                          "  %bz = broadcast %z : tile<4x8xi64>\n}\n"};
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++)
        free(round_trip(srcs[i]));
    char *p = round_trip(all);
    ck_assert_ptr_nonnull(strstr(p, "%nz = const -0.0 : f32\n"));
    ck_assert_ptr_nonnull(strstr(p, "%nan = const nan : f32\n"));
    ck_assert_ptr_nonnull(strstr(p, "%bits = const 0xffc00001 : f32\n"));
    ck_assert_ptr_nonnull(strstr(p, "%m1 = const -1 : i32\n"));
    ck_assert_ptr_nonnull(strstr(p, "%tiny = const 1.40129846e-45 : f32\n"));
    ck_assert_ptr_nonnull(strstr(p, "{padding = -inf} : tile<16x8xf32>\n"));
    ck_assert_ptr_nonnull(strstr(p, "%dt = dot %o1, %o2, %o1 {precision = 3xtf32} : tile<16x16xf32>\n"));
    ck_assert_ptr_nonnull(strstr(p, "%d1 = dot %th, %th, %acc : tile<16x16xf32>\n"));
    ck_assert_ptr_nonnull(strstr(p, "  %o1, %o2 = for %i = %r to %n step %q iter(%a1 = %x, %a2 = %ci) {\n"
                                    "    %j = add %i, 1\n"));
    ck_assert_ptr_nonnull(strstr(p, "      yield %s4\n    }\n    for %kk = 0 to 4 step 1 {\n"));
    ck_assert_ptr_nonnull(strstr(p, "grid(4, 2, 1) warps(16) {\n"));
    ck_assert_ptr_nonnull(strstr(p, "%big = add %n64, 9223372036854775807\n"));
    ck_assert_ptr_nonnull(strstr(p, "%fm2 = fma %fm, 3.0, %s : tile<16x16xf32>\n"));
    ck_assert_ptr_nonnull(strstr(p, "%sh = splat 2.5 : tile<16x16xf16>\n"));

    ck_assert_ptr_nonnull(strstr(p, "\"max.f32 $0, $1, $2;\\t// \\\"quoted\\\" \\\\ \\n\" %bc, %bm"));
    free(p);
    p = round_trip(srcs[5]); /* literals typed by the loop (yield) and the result (inline_ptx) */
    ck_assert_ptr_nonnull(strstr(p, "    %c = add %a, 1.0\n    yield 2.5, -3\n"));
    ck_assert_ptr_nonnull(strstr(p, "inline_ptx \"add.s32 $0, $1, $2;\" %t, 7 : i32\n"));
    free(p);
    free(all);
}
END_TEST

/* Values made by passes: no names, names the lexer would not take, consts
 * the parser could not type if printed inline (a carried init, a cast's
 * operand). The printer names them; the result reads back to a fixed point. */
START_TEST(print_generated_names)
{
    Parsed r = parse("kernel @k(%n: i32) {\n  %c0 = const 0 : i32\n  %c1 = const 2 : i32\n  %f = cast %c1 : f32\n"
                     "  %s = for %i = 0 to %n step 1 iter(%a = %c0) {\n    %b = add %a, %c1\n    yield %b\n  }\n"
                     "  %c2 = const 3 : i32\n  %t = add %s, %c2\n}\n");
    ck_assert_msg(r.nerr == 0, "%s", log_of(&r));
    TirModule *m = r.m;
    uint32_t bad = tir_add_string(m, "x-y", 3);
    for (uint32_t v = 1; v < m->nvalues; v++) {
        const char *nm = tir_str(m, m->values[v].name);
        if (!strcmp(nm, "c0") || !strcmp(nm, "c1") || !strcmp(nm, "c2") || !strcmp(nm, "s"))
            m->values[v].name = 0;
        else if (!strcmp(nm, "b"))
            m->values[v].name = bad;
    }
    char *p1 = print_module(m);
    ck_assert_ptr_null(strstr(p1, "x-y"));
    ck_assert_msg(strstr(p1, " = const 0 : i32\n") && strstr(p1, " = const 2 : i32\n"), "%s", p1);
    ck_assert_msg(!strstr(p1, "const 3"), "%s", p1);         /* printed inline */
    ck_assert_msg(strstr(p1, " = add %v") && strstr(p1, ", 3\n"), "%s", p1);
    ck_assert_msg(strstr(p1, "iter(%a = %v"), "%s", p1);
    Parsed r2 = parse(p1);
    ck_assert_msg(r2.nerr == 0, "%s\n%s", log_of(&r2), p1);
    char *p2 = print_module(r2.m);
    ck_assert_str_eq(p1, p2);
    free(p1), free(p2);
    done(&r2);
    done(&r);
}
END_TEST

/* The same with a well-typed module: names only. Then a fixed point. */
START_TEST(print_renamed_fixed_point)
{
    char *all = all_ops();
    Parsed r = parse(all);
    ck_assert_int_eq(r.nerr, 0);
    TirModule *m = r.m;
    uint32_t dup = tir_add_string(m, "dup", 3);
    for (uint32_t v = 1; v < m->nvalues; v++)
        if (m->values[v].name && v % 2)
            m->values[v].name = v % 4 == 1 ? 0 : dup;
    char *p1 = print_module(m);
    Parsed r2 = parse(p1);
    ck_assert_msg(r2.nerr == 0, "%s\n%s", log_of(&r2), p1);
    char *p2 = print_module(r2.m);
    ck_assert_str_eq(p1, p2);
    ck_assert_ptr_nonnull(strstr(p1, "%dup"));
    ck_assert_ptr_nonnull(strstr(p1, "%dup."));
    free(p1), free(p2), free(all);
    done(&r), done(&r2);
}
END_TEST

/* A large kernel: 100k values with one name, printed with unique names fast. */
START_TEST(print_large)
{
    enum { N = 50000 };
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "kernel @big(%x: i32) {\n  %v0 = add %x, 1\n");
    for (int i = 1; i < N; i++)
        sb_printf(&s, "  %%v%d = add %%v%d, %d\n", i, i - 1, i);
    sb_puts(&s, "}\n");
    Parsed r = parse(s.data);
    ck_assert_msg(r.nerr == 0, "%s", log_of(&r));
    uint32_t same = tir_add_string(r.m, "same", 4);
    for (uint32_t v = 2; v < r.m->nvalues; v++)
        r.m->values[v].name = same;
    char *p1 = print_module(r.m);
    Parsed r2 = parse(p1);
    ck_assert_msg(r2.nerr == 0, "%.2000s", log_of(&r2));
    char *p2 = print_module(r2.m);
    ck_assert(strcmp(p1, p2) == 0);
    free(p1), free(p2);
    sb_free(&s);
    done(&r), done(&r2);
}
END_TEST

/* ---- malformed input: one error each, at the offending token ---- */

#define H "kernel @k(%A: ptr<f32>, %n: i32, %l: i64, %f: f32) {\n"
static const struct {
    const char *src;
    unsigned line, col;
    const char *msg;
} BAD[] = {
    {H "  %x = add %y, 1\n}\n", 2, 12, "use of undefined value '%y'"},
    {H "  %x = add %n, 1\n  %x = add %n, 2\n}\n", 3, 3, "redefinition of '%x'"},
    {H "  %a = zeros : tile<64x32xf32>\n  %b = zeros : tile<16x64xf32>\n  %c = zeros : tile<64x64xf32>\n"
       "  %d = dot %a, %b, %c\n}\n", 5, 8, "dot: inner dimensions differ: tile<64x32xf32> times tile<16x64xf32>"},
    {H "  %v = view %A [64, 64] strides [64, 1]\n  %a = load %v[0, 0 : tile<64x64xf32>\n  %b = add %a, 1.0\n}\n",
     3, 21, "expected ']' after index"},
    {H "  %a = const 1 : f8\n  %b = add %a, 1\n}\n", 2, 18, "unknown type 'f8'"},
    {H "  %a = zeros : tile<64x64xf8>\n  %b = add %a, 1.0\n}\n", 2, 21, "unknown element type 'f8'"},
    {H "  %z = zeros\n  %y = add %n, 1\n}\n", 2, 13, "zeros needs a result type"},
    {H "  %z = foo %n\n  %y = add %z, 1\n}\n", 2, 8, "unknown operation 'foo'"},
    {H "  %acc = for %i = 0 to %n step 1 iter(%c = %n) {\n    %d = add %c, %i\n  }\n}\n", 4, 3,
     "a loop body must end with 'yield'"},
    {H "  for %i = 0 to %n step 1 {\n    %d = add %n, %i\n    yield\n  }\n  %e = add %d, 1\n}\n", 6, 12,
     "'%d' is defined inside a loop body and is not visible here"},
    {H "  %a = zeros : tile<64x48xf32>\n}\n", 2, 21, "tile dimension 48 is not a power of two"},
    {H "  %a = zeros : tile<1024x1024xf32>\n}\n", 2, 21, "has 1048576 elements; at most 65536"},
    {H "  %a = add 1, 2\n}\n", 2, 12, "add: cannot tell the type of literal '1'"},
    {H "  %a = zeros : tile<64x64xf32>\n  %b = round_tf32 %a\n}\n", 3, 8, "round_tf32 needs a rounding mode"},
    {H "  %a = zeros : tile<64x64xf32>\n  %b = reduce_sum %a {axis = 2}\n}\n", 3, 30, "axis must be 0 or 1"},
    {H "  %a = zeros : tile<64x64xf16>\n  %c = zeros : tile<64x64xf32>\n  %b = dot %a, %a, %c {precision = ieee}\n}\n",
     4, 8, "dot: precision applies to f32 inputs only"},
    {H "  %a = program_id 3\n}\n", 2, 19, "axis must be 0, 1 or 2, got 3"},
    {"kernel @k() warps(3) {\n}\n", 1, 19, "warps must be 1, 2, 4, 8 or 16, got 3"},
    {H "  %a = const 3000000000 : i32\n}\n", 2, 14, "3000000000 does not fit in i32"},
    {H "  %a = const 99999999999999999999 : i64\n}\n", 2, 14, "does not fit in 64 bits"},
    {H "  %a = add %n, $ 1\n}\n", 2, 16, "expected a name after '$'"},
    {H "  %a = add %n, 1\n", 2, 17, "expected '}' to close the block opened at 1:52"},
    {H "  %c = add %n %n\n  %d = mul %c, 2\n}\n", 2, 14, "expected ',' between operands"},
    {H "  %z = zeros : tile<4x4xf32>\n  %r = for %i = 0 to %n step 1 iter(%c = %z) {\n    yield %n\n  }\n}\n", 4, 5,
     "yield: value 1 has type i32 but the loop carries tile<4x4xf32>"},
    {H "  %z = zeros : tile<4x4xf32>\n  %r = for %i = 0 to %n step 1 iter(%c = %z) {\n    %q = add %r, %c\n"
       "    yield %q\n  }\n}\n", 4, 14, "use of '%r' inside the loop that defines it"},
    {H "  %a = add %a, 1\n}\n", 2, 12, "use of '%a' in its own definition"},
    {H "  %a = add %n, 1 {axis = 0}\n}\n", 2, 19, "unknown attribute 'axis' for add"},
    {H "  %a = zeros : tile<4x4xf32>\n  %d = dot %a, %a, %a {precision = tf32}\n}\n", 3, 36,
     "unknown precision 'tf32'"},
    {H "  %a add %n, 1\n}\n", 2, 6, "expected '=' after the name"},
    {H "  %v = view %A [64, 64] strides [64, 1, 1]\n}\n", 2, 25, "view: 2 extents but 3 strides"},
    {H "  %v = view %A [64] strides [1]\n}\n", 2, 16, "view: rank must be 2 or 3, got 1"},
    {H "  %z = zeros : tile<4x4xf32>\n  for %i = 0 to %n step 1 iter(%c = %z) {\n    yield %c\n  }\n}\n", 3, 3,
     "for carries 1 value but 0 names are given"},
    {H "  yield\n}\n", 2, 3, "'yield' outside a loop body"},
    {H "  %p = inline_ptx \"mov.b32 $0, 1; : i32\n}\n", 2, 19, "unterminated string"},
    {"kernel @k() {\n}\nkernel @k() {\n}\n", 3, 8, "redefinition of kernel '@k'"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = zeros : tile<4x8xf32>\n  %c = add %a, %b\n}\n", 4, 8,
     "add: tile shapes differ: tile<4x4xf32> and tile<4x8xf32>"},
    {"kernel @k(%H: ptr<f16>) {\n  %v = view %H [4, 4] strides [4, 1]\n  %t = load %v[0, 0] : tile<4x4xf16>\n"
     "  %u = mul %t, 2.0\n}\n", 4, 16, "a literal cannot be combined with f16 elements"},
    {H "  %v = view %A [4, 4] strides [4, 1]\n  %t = load %v[0, 0] : tile<4x4xf16>\n}\n", 3, 8,
     "load: tile element type f16 differs from the view's f32"},
    {H "  %r = for %i = 0 to %n step 1 iter(%c = %n) {\n    yield %c\n    %q = add %c, 1\n  }\n}\n", 4, 5,
     "'yield' must be the last statement of a loop body"},
    {H "  add %n, 1\n}\n", 2, 3, "'add' produces a value; write '%name = add ...'"},
    {"garbage\nkernel @k() {\n}\n", 1, 1, "expected 'kernel', got 'garbage'"},
    {H "  %a = const 1 : f16\n}\n", 2, 18, "'f16' is not a scalar type"},
    {H "  %a = add %n, 1.5\n}\n", 2, 16, "expected an integer for i32, got '1.5'"},
    {H "  %a = add %n, %l\n}\n", 2, 8, "add: operand types differ: i32 and i64"},
    {H "  %a = rem %f, %f\n}\n", 2, 8, "rem needs integer operands, got f32"},
    {H "  %a = exp %n\n}\n", 2, 8, "exp needs float operands, got i32"},
    {H "  %a = cast %n : tile<4x4xf32>\n}\n", 2, 8, "cast: cannot cast i32 to tile<4x4xf32>"},
    {H "  %a = splat %n : tile<4x4xf32>\n}\n", 2, 8, "splat: cannot splat i32 to tile<4x4xf32>"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = broadcast %a : tile<8x8xf32>\n}\n", 3, 8, "broadcast: cannot broadcast"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = add %a, %a : tile<4x4xf16>\n}\n", 3, 8,
     "add: written type tile<4x4xf16> does not match the inferred type tile<4x4xf32>"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = zeros : tile<4x4xf32>\n  %d = dot %a, %b, %b : tile<4x4xi32>\n}\n", 4, 8,
     "does not match the inferred type"},
    {H "  %x = inline_ptx \"add.s32 $0, $1, $3;\" %n, %n : i32\n}\n", 2, 8,
     "template refers to $3 but there are only 2 operands"},
    {H "  %x = inline_ptx \"mov.b64 $0, $1;\" %l : i32\n}\n", 2, 8, "operand 1 must be a scalar or tile of i32 or f32"},
    {H "  for %i = 0 to %l step 1 {\n    yield\n  }\n}\n", 2, 3, "for: the upper bound must be i32, got i64"},
    {H "  %v = view %n [4, 4] strides [4, 1]\n}\n", 2, 8, "view: operand 1 must be a pointer, got i32"},
    {H "  %v = view %A [4, 4] strides [4, 1]\n  %t = load %v[0] : tile<4x4xf32>\n}\n", 3, 8,
     "load: a rank-2 view needs 2 indices, got 1"},
    {H "  %v = view %A [4, 4] strides [4, 1]\n  %t = zeros : tile<4x4xi32>\n  store %t, %v[0, 0]\n}\n", 4, 3,
     "store: tile element type i32 differs from the view's f32"},
    {H "  %v = view %A [%f, 4] strides [4, 1]\n}\n", 2, 8, "view: extents and strides must be i32 or i64 scalars"},
    {H "  %a = const 1e39 : f32\n}\n", 2, 14, "'1e39' is out of range for f32"},
    {H "  %a = full 1.5 : tile<4x4xi32>\n}\n", 2, 13, "expected an integer for i32, got '1.5'"},
    {"kernel @k(%t: tile<4x4xf32>) {\n}\n", 1, 11, "parameter '%t' must be a pointer or a scalar"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = cdiv %a, %a\n}\n", 3, 8, "cdiv takes scalar operands only"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = round_tf32 %a {mode = up}\n}\n", 3, 30, "unknown rounding mode 'up'"},
    {H "  %a = zeros : view<2xf32>\n}\n", 2, 16, "view types cannot be written"},
    {H "  %a = const -0x1 : i32\n}\n", 2, 14, "negative hexadecimal literals are not allowed"},
    {H "  %a = const 0x100000000 : i32\n}\n", 2, 14, "'0x100000000' does not fit in 32 bits"},
    {H "  store %n\n}\n", 2, 11, "expected ',' after the stored tile"},
    {H "  %x = add %n, 1 %y = add %n, 2\n  %z = add %x, %q\n}\n", 3, 16, "use of undefined value '%q'"},
    {H "  %a = zeros : tile<4x4xf16>\n  %r = round_tf32 %a {mode = rna}\n}\n", 3, 8,
     "round_tf32: operand must be f32, got tile<4x4xf16>"},
    {H "  %d = dot %n, %n, %n\n}\n", 2, 8, "dot: operands must be tiles, got i32, i32, i32"},
    {H "  %a = zeros : tile<4x4xi32>\n  %c = zeros : tile<4x4xf32>\n  %d = dot %a, %a, %c\n}\n", 4, 8,
     "dot: inputs must be both f32, both f16 or both bf16, got tile<4x4xi32> and tile<4x4xi32>"},
    {H "  %a = zeros : tile<4x4xf16>\n  %d = dot %a, %a, %a\n}\n", 3, 8, "dot: the accumulator must be f32"},
    {H "  %a = zeros : tile<4x4xf32>\n  %c = zeros : tile<4x8xf32>\n  %d = dot %a, %a, %c\n}\n", 4, 8,
     "dot: accumulator tile<4x8xf32> does not match tile<4x4xf32> times tile<4x4xf32>"},
    {H "  %x = inline_ptx \"mov.b32 $0, 0;\" : tile<4x4xf16>\n}\n", 2, 8,
     "inline_ptx: result must have 32-bit elements (i32 or f32), got tile<4x4xf16>"},
    {H "  %a = zeros : tile<4x4xf32>\n  %x = inline_ptx \"mov.b32 $0, $1;\" %a : tile<8x4xf32>\n}\n", 3, 8,
     "inline_ptx: tile operand tile<4x4xf32> does not have the shape of the result tile<8x4xf32>"},
    {H "  %v = view %A [4, 4] strides [4, 1]\n  %r = for %i = 0 to %n step 1 iter(%c = %v) {\n    yield %c\n  }\n}\n",
     3, 8, "for: carried value 1 has type view<2xf32>; only scalars and tiles can be carried"},
    {H "  %r = for %i = 0 to %n step 1 iter(%c = 0) {\n    yield %c\n  }\n  %s = add %r, 1\n}\n", 2, 42,
     "for: cannot tell the type of literal '0' here"},
    {H "  %c = const 1 : tile<4x4xf32>\n}\n", 2, 8, "const: type must be i32, i64 or f32, got tile<4x4xf32>"},
    {H "  %c = full 1 : f32\n}\n", 2, 8, "full: result must be a tile, got f32"},
    {H "  %v = view %A [4, 4] strides [4, 1]\n  store %f, %v[0, 0]\n}\n", 3, 3, "store: operand 1 must be a tile, got f32"},
    {H "  %r = reduce_max %f {axis = 0}\n}\n", 2, 8, "reduce_max: operand must be a tile, got f32"},
    {H "  %t = load %A[0, 0] : tile<4x4xf32>\n}\n", 2, 8, "load: operand 1 must be a view, got ptr<f32>"},
    {H "  %t = add %A, %A\n}\n", 2, 8, "add: operand 1 has type ptr<f32>; expected a scalar or a tile"},
    {"kernel @k(%A: ptr<i64>) {\n  %v = view %A [4, 4] strides [4, 1]\n"
     "  %t = load %v[0, 0] {padding = 9007199254740993} : tile<4x4xi64>\n}\n", 3, 33, "cannot be held exactly"},
    {"kernel @k() grid(4, 0) {\n}\n", 1, 21, "grid size must be between 1 and 2147483647, got 0"},
    {H "  %a = zeros : tile<4x4xf32>\n  %r = round_tf32 %a {mode = rna, mode = rne}\n}\n", 3, 35,
     "duplicate attribute 'mode'"},
    {H "  %a = zeros : tile<2048x1xf32>\n}\n", 2, 21, "tile dimension 2048 exceeds 1024"},
    {H "  %a = add %f, 0x100000000\n}\n", 2, 16, "hexadecimal float literal '0x100000000' must be a 32-bit pattern"},
    {H "  %a = zeros : tile<4x4xf32>\n  %b = mask_nonfinite %a, %n\n}\n", 3, 8,
     "mask_nonfinite: operand types differ: tile<4x4xf32> and i32"},
};
#undef H

START_TEST(malformed_one_error)
{
    Parsed r = parse(BAD[_i].src);
    char where[64];
    snprintf(where, sizeof where, "t.tir:%u:%u: error: ", BAD[_i].line, BAD[_i].col);
    ck_assert_msg(r.nerr == 1, "case %d: %d errors:\n%s", _i, r.nerr, log_of(&r));
    ck_assert_msg(strstr(log_of(&r), where) != NULL, "case %d: expected %s%s, got:\n%s", _i, where, BAD[_i].msg,
                  log_of(&r));
    ck_assert_msg(strstr(log_of(&r), BAD[_i].msg) != NULL, "case %d: expected '%s', got:\n%s", _i, BAD[_i].msg,
                  log_of(&r));
    done(&r);
}
END_TEST

/* A use of an undefined name is reported once, not at every use. */
START_TEST(errors_do_not_cascade)
{
    Parsed r = parse("kernel @k(%n: i32) {\n  %a = add %nn, 1\n  %b = add %nn, %a\n  %c = mul %b, %a\n"
                     "  %d = add %c, 1.5\n  %e = zeros : tile<4x4xf33>\n  %g = add %e, %e\n}\n");
    ck_assert_msg(r.nerr == 2, "%s", log_of(&r));
    ck_assert_ptr_nonnull(strstr(log_of(&r), "t.tir:2:12: error: use of undefined value '%nn'"));
    ck_assert_ptr_nonnull(strstr(log_of(&r), "t.tir:6:21: error: unknown element type 'f33'"));
    done(&r);
}
END_TEST

/* Independent mistakes on several lines: each reported, in order. */
START_TEST(several_errors)
{
    Parsed r = parse("kernel @k(%n: i32) {\n  %a = add %n 1\n  %b = add %n, 1\n  %c = sub %b, 2.5\n  %d = ( %b\n"
                     "  %e = mul %b, %b\n  %e = mul %b, %b\n}\nkernel @j(%x: f8) {\n  %y = add %x, 1\n}\n");
    ck_assert_msg(r.nerr == 5, "%s", log_of(&r));
    const char *l = log_of(&r);
    const char *want[] = {"t.tir:2:14: error: expected ','", "t.tir:4:16: error: expected an integer",
                          "t.tir:5:8: error: expected an operation after '='", "t.tir:7:3: error: redefinition",
                          "t.tir:9:15: error: unknown type 'f8'"};
    for (int i = 0; i < 5; i++) {
        const char *at = strstr(l, want[i]);
        ck_assert_msg(at != NULL, "missing %s in\n%s", want[i], l);
        l = at + 1;
    }
    done(&r);
}
END_TEST

START_TEST(max_errors)
{
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "kernel @k(%n: i32) {\n");
    for (int i = 0; i < 1000; i++)
        sb_printf(&s, "  %%v%d = add %%n, %%undefined%d\n", i, i);
    sb_puts(&s, "}\n");
    Parsed r = parse(s.data);
    ck_assert_int_ge(r.nerr, 20);
    ck_assert_int_le(r.nerr, 21);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "too many errors"));
    ck_assert_ptr_nonnull(strstr(log_of(&r), "%undefined19'"));
    ck_assert_ptr_null(strstr(log_of(&r), "%undefined20'"));
    done(&r);
    sb_free(&s);
}
END_TEST

/* ---- robustness ---- */

static void nest(StrBuf *s, int depth, int yield_each)
{
    sb_puts(s, "kernel @k(%n: i32) {\n");
    for (int i = 0; i < depth; i++)
        sb_printf(s, "for %%i%d = 0 to %%n step 1 {\n", i);
    for (int i = 0; i < depth; i++)
        sb_puts(s, yield_each ? "yield\n}\n" : "}\n");
    sb_puts(s, "}\n");
}

START_TEST(nesting)
{
    StrBuf s;
    sb_init(&s);
    nest(&s, TIR_MAX_NESTING, 1);
    Parsed r = parse(s.data);
    ck_assert_msg(r.nerr == 0, "%s", log_of(&r));
    done(&r);
    sb_free(&s);
    nest(&s, 5000, 1);
    r = parse(s.data);
    ck_assert_int_eq(r.nerr, 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "t.tir:66:1: error: loops are nested more than 64 deep"));
    done(&r);
    sb_free(&s);
    /* a million braces, parentheses, brackets */
    const char *open[] = {"{", "(", "[", "<", "tile<"};
    for (size_t k = 0; k < 5; k++) {
        sb_puts(&s, k == 0 ? "kernel @k() " : "kernel @k() {\n %a = add ");
        for (int i = 0; i < 1000000; i++)
            sb_puts(&s, open[k]);
        r = parse_n(s.data, s.len);
        ck_assert_int_ge(r.nerr, 1);
        ck_assert_int_le(r.nerr, 3);
        done(&r);
        sb_free(&s);
    }
}
END_TEST

START_TEST(every_prefix)
{
    char *all = all_ops();
    const char *srcs[] = {MATMUL, all};
    for (int f = 0; f < 2; f++) {
        size_t n = strlen(srcs[f]);
        for (size_t len = 0; len < n; len++) {
            Parsed r = parse_n(srcs[f], len);
            /* a prefix ending inside the kernel is an error */
            if (len > (size_t)(strstr(srcs[f], "kernel") - srcs[f]) && len < n - 1)
                ck_assert_msg(r.nerr > 0, "prefix %zu parsed", len);
            ck_assert_int_le(r.nerr, 21);
            done(&r);
        }
    }
    free(all);
}
END_TEST

static uint64_t rng = 88172645463325252u;
static uint32_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)rng;
}

#define ALPHABET " \n%@{}[]()<>,:=-.0123456789xaefikrnt\"\\/"
START_TEST(random_bytes)
{
    char buf[512];
    for (int it = 0; it < 3000; it++) {
        size_t n = rnd() % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = it % 2 ? (char)rnd() : ALPHABET[rnd() % (sizeof ALPHABET - 1)];
        if (it % 3 == 0 && n > 12) /* often start like a kernel to get further */
            memcpy(buf, "kernel @k() {", 13);
        Parsed r = parse_n(buf, n);
        ck_assert_int_le(r.nerr, 21);
        done(&r);
    }
}
END_TEST

/* Mutants of valid kernels: no crash; those that parse must print to a
 * fixed point. */
START_TEST(mutations)
{
    static const char *frags[] = {"%a", "%k", "%c", "0", "1.5", "-1", "0x10", "nan", ",", "]", "[", "{", "}",
                                  ":", "=", "tile<4x4xf32>", "i64", "f16", "\n", " ", "yield", "for", "add",
                                  "dot", "iter(", ")", "\"", "//", "1e40", "99999999999999999999"};
    char *all = all_ops();
    const char *srcs[] = {MATMUL, SEED, all};
    int parsed = 0;
    for (int it = 0; it < 4000; it++) {
        const char *src = srcs[it % 3];
        size_t n = strlen(src);
        StrBuf s;
        sb_init(&s);
        size_t at = rnd() % n, cut = rnd() % 4;
        const char *frag = frags[rnd() % (sizeof frags / sizeof *frags)];
        sb_putn(&s, src, at);
        sb_puts(&s, frag);
        if (at + cut < n)
            sb_puts(&s, src + at + cut);
        Parsed r = parse_n(s.data, s.len);
        if (r.nerr == 0) {
            parsed++;
            char *p1 = print_module(r.m);
            Parsed r2 = parse(p1);
            ck_assert_msg(r2.nerr == 0, "%s\n%s", log_of(&r2), p1);
            char *p2 = print_module(r2.m);
            ck_assert_str_eq(p1, p2);
            free(p1), free(p2);
            done(&r2);
        }
        done(&r);
        sb_free(&s);
    }
    ck_assert_int_gt(parsed, 100);
    free(all);
}
END_TEST

START_TEST(odd_bytes)
{
    static const char nul[] = "kernel @k(%n: i32) {\n  %a = add %n,\0 1\n}\n";
    Parsed r = parse_n(nul, sizeof nul - 1);
    ck_assert_int_eq(r.nerr, 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "t.tir:2:15: error: unexpected byte 0x00"));
    done(&r);
    r = parse_n("", 0);
    ck_assert_int_eq(r.nerr, 0);
    ck_assert_uint_eq(r.m->nkernels, 0);
    done(&r);
    r = parse("kernel @k(%n: i32) {\n  %a = add %n, 1 // comment at the end without newline\n}// x");
    ck_assert_int_eq(r.nerr, 0);
    done(&r);
    r = parse("kernel @k(%n: i32) {\r\n\t%a = add %n, 1\r\n}\r\n");
    ck_assert_int_eq(r.nerr, 0);
    done(&r);
    /* names and numbers at the limits */
    r = parse("kernel @k(%n: i64) {\n  %a = add %n, -9223372036854775808\n  %b = add %a, 9223372036854775807\n}\n");
    ck_assert_int_eq(r.nerr, 0);
    done(&r);
    r = parse("kernel @k(%n: i64) {\n  %a = add %n, -9223372036854775809\n}\n");
    ck_assert_int_eq(r.nerr, 1);
    done(&r);
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "kernel @k(%n: f32) {\n  %a = add %n, 1.");
    for (int i = 0; i < 100000; i++)
        sb_puts(&s, "5");
    sb_puts(&s, "\n}\n");
    r = parse(s.data);
    ck_assert_int_eq(r.nerr, 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "is too long"));
    done(&r);
    sb_free(&s);
}
END_TEST

/* Limits that come from the module: the instruction cap and a module that
 * already ran out of memory. */
START_TEST(module_limits)
{
    StrBuf s;
    sb_init(&s);
    sb_puts(&s, "kernel @k(%A: ptr<f32>) {\n");
    for (int i = 0; i < 150000; i++) /* 7 instructions a line: 6 literal consts and the view */
        sb_printf(&s, "  %%v%d = view %%A [1, 2, 3] strides [4, 5, 6]\n", i);
    sb_puts(&s, "}\n");
    Parsed r = parse(s.data);
    ck_assert_int_eq(r.nerr, 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "t.tir:149798:41: error: too many instructions (the limit is 1048576; each literal operand counts as one)"));
    done(&r);
    sb_free(&s);
    TirModule *m = tir_module_new("t.tir");
    Diag d;
    diag_init(&d, "t.tir", NULL, 0);
    m->oom = 1;
    ck_assert_int_eq(tir_parse(m, SEED, strlen(SEED), &d), 1);
    ck_assert_ptr_nonnull(strstr(d.log.data, "out of memory"));
    diag_free(&d);
    tir_module_free(m);
}
END_TEST

/* ---- typecheck on hand-built instructions ---- */

START_TEST(check_inst_api)
{
    TirModule *m = tir_module_new("api");
    Diag d;
    diag_init(&d, "api", NULL, 0);
    TirType t;
    ck_assert_int_eq(tir_check_inst(m, 0, &t, &d), 1);
    ck_assert_int_eq(tir_check_inst(m, 99, &t, &d), 1);
    uint32_t z = tir_build(m, OP_ZEROS, (TirLoc){1, 1}, tir_tile(ELEM_F32, 4, 8), NULL, 0);
    ck_assert_int_eq(tir_check_inst(m, z, &t, &d), 0);
    ck_assert(tir_type_eq(t, tir_tile(ELEM_F32, 4, 8)));
    uint32_t zv = m->insts[z].result;
    uint32_t args[3] = {zv, zv, 12345};
    uint32_t bad = tir_build(m, OP_ADD, (TirLoc){2, 1}, (TirType){0}, args + 1, 2);
    ck_assert_int_eq(tir_check_inst(m, bad, &t, &d), 1);
    ck_assert_ptr_nonnull(strstr(d.log.data, "api:2:1: error: add: operand 2 is not a value"));
    uint32_t r1 = tir_build(m, OP_REDUCE_MAX, (TirLoc){3, 1}, (TirType){0}, args, 1);
    m->insts[r1].ival = 1;
    ck_assert_int_eq(tir_check_inst(m, r1, &t, &d), 0);
    ck_assert(tir_type_eq(t, tir_tile(ELEM_F32, 4, 1)));
    uint32_t wrong = tir_build(m, OP_NEG, (TirLoc){4, 1}, (TirType){0}, args, 2);
    ck_assert_int_eq(tir_check_inst(m, wrong, &t, &d), 1);
    ck_assert_ptr_nonnull(strstr(d.log.data, "neg expects 1 operand, got 2"));
    uint32_t big = tir_build(m, OP_ZEROS, (TirLoc){5, 1}, tir_tile(ELEM_F32, 2048, 1), NULL, 0);
    ck_assert_int_eq(tir_check_inst(m, big, &t, &d), 1);
    ck_assert_ptr_nonnull(strstr(d.log.data, "invalid tile type tile<2048x1xf32>"));
    uint32_t c = tir_build(m, OP_CONST, (TirLoc){6, 1}, tir_scalar(ELEM_I32), NULL, 0);
    m->insts[c].i64 = (int64_t)1 << 40;
    ck_assert_int_eq(tir_check_inst(m, c, &t, &d), 1);
    ck_assert_ptr_nonnull(strstr(d.log.data, "const: 1099511627776 does not fit in i32"));
    uint32_t f = tir_build(m, OP_FULL, (TirLoc){7, 1}, tir_tile(ELEM_I32, 2, 2), NULL, 0);
    m->insts[f].fval = 0.5;
    ck_assert_int_eq(tir_check_inst(m, f, &t, &d), 1);
    ck_assert_ptr_nonnull(strstr(d.log.data, "full: 0.5 is not a valid i32 value"));
    ck_assert(!m->oom);
    diag_free(&d);
    tir_module_free(m);
}
END_TEST

/* A for's yield is checked by tir_check_inst once the body is complete
 * (what the verifier sees after a pass rewrote the body). */
START_TEST(check_for_yield)
{
    Parsed r = parse(MATMUL);
    ck_assert_int_eq(r.nerr, 0);
    TirModule *m = r.m;
    uint32_t fi = 0;
    for (uint32_t i = 1; i < m->ninsts; i++)
        if (m->insts[i].op == OP_FOR)
            fi = i;
    const TirBlock *body = &m->blocks[m->insts[fi].body];
    uint32_t y = tir_block_insts(m, body)[body->ninsts - 1];
    TirType t;
    ck_assert_int_eq(tir_check_inst(m, fi, &t, &r.d), 0);
    m->pool[m->insts[y].args] = m->pool[m->kernels[0].params + 3]; /* yield %M */
    ck_assert_int_eq(tir_check_inst(m, fi, &t, &r.d), 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "t.tir:16:5: error: yield: value 1 has type i32 but the loop carries"));
    m->insts[y].nargs = 0;
    ck_assert_int_eq(tir_check_inst(m, fi, &t, &r.d), 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "yield gives 0 values but the loop carries 1"));
    m->insts[y].op = OP_STORE;
    ck_assert_int_eq(tir_check_inst(m, fi, &t, &r.d), 1);
    ck_assert_ptr_nonnull(strstr(log_of(&r), "the body must end with 'yield'"));
    done(&r);
}
END_TEST

/* $NAME / ${NAME} constants (-DNAME=VALUE): tir_define's checks, the
 * substitution, and the lexer's errors, each at the '$'. */
START_TEST(defines)
{
    TirDefines defs = {0};
    const char *why = NULL;
    ck_assert_int_eq(tir_define(&defs, "BM=128", &why), 0);
    ck_assert_int_eq(tir_define(&defs, "n_2=-3", &why), 0);
    ck_assert_int_eq(tir_define(&defs, "BM=64", &why), 0); /* replaces */
    ck_assert_int_eq(defs.n, 2);
    ck_assert_str_eq(defs.d[0].text, "64");
    static const char *const bad[] = {"BM", "=1", "9X=1", "B-M=1", "BM=", "BM=1x", "BM=0x10", "BM= 1",
                                      "BM=99999999999999999999", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(tir_define(&defs, bad[i], &why) == -1 && why, "accepted '%s'", bad[i]);
    ck_assert_int_eq(defs.n, 2);
    TirDefines full = {0};
    char def[16];
    for (int i = 0; i < TIR_MAX_DEFINES; i++) {
        snprintf(def, sizeof def, "D%d=%d", i, i);
        ck_assert_int_eq(tir_define(&full, def, &why), 0);
    }
    ck_assert_int_eq(tir_define(&full, "ONE_MORE=1", &why), -1);

    const char *src = "kernel @k(%A: ptr<f32>) warps($W) {\n"
                      "  %va = view %A [${R}, 64] strides [64, 1]\n"
                      "  %a = load %va[0, 0] : tile<${R}x64xf32>\n"
                      "  %b = mul %a, %a\n"
                      "  store %b, %va[0, 0]\n"
                      "}\n";
    TirDefines d2 = {0};
    ck_assert_int_eq(tir_define(&d2, "R=32", &why), 0);
    ck_assert_int_eq(tir_define(&d2, "W=8", &why), 0);
    TirModule *m = tir_module_new("t.tir");
    Diag d;
    diag_init(&d, "t.tir", src, strlen(src));
    ck_assert_int_eq(tir_parse_defs(m, src, strlen(src), &d2, &d), 0);
    char *text = print_module(m);
    ck_assert_msg(strstr(text, "warps(8)") && strstr(text, "[32, 64]") && strstr(text, "tile<32x64xf32>"), "%s", text);
    free(text);
    diag_free(&d);
    tir_module_free(m);

    static const struct {
        const char *src, *want;
    } errs[] = {
        {"kernel @k() warps($W) {\n}\n", "t.tir:1:19: error: '$W' is not defined (define it with -DW=VALUE)"},
        {"kernel @k() warps($) {\n}\n", "t.tir:1:19: error: expected a name after '$'"},
        {"kernel @k() warps(${W) {\n}\n", "t.tir:1:19: error: expected a name and '}' after '${'"},
    };
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        Parsed r = parse(errs[i].src); /* no defines at all */
        ck_assert_msg(r.nerr > 0 && strstr(log_of(&r), errs[i].want), "%s\n--- got:\n%s", errs[i].want, log_of(&r));
        done(&r);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("parse");
    TCase *t = tcase_create("structure");
    tcase_add_test(t, seed_structure);
    tcase_add_test(t, matmul_structure);
    tcase_add_test(t, literal_types);
    suite_add_tcase(s, t);
    t = tcase_create("print");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, print_seed_exact);
    tcase_add_test(t, print_round_trips);
    tcase_add_test(t, print_generated_names);
    tcase_add_test(t, print_renamed_fixed_point);
    tcase_add_test(t, print_large);
    suite_add_tcase(s, t);
    t = tcase_create("errors");
    tcase_add_loop_test(t, malformed_one_error, 0, (int)(sizeof BAD / sizeof *BAD));
    tcase_add_test(t, errors_do_not_cascade);
    tcase_add_test(t, several_errors);
    tcase_add_test(t, max_errors);
    suite_add_tcase(s, t);
    t = tcase_create("robustness");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, nesting);
    tcase_add_test(t, every_prefix);
    tcase_add_test(t, random_bytes);
    tcase_add_test(t, mutations);
    tcase_add_test(t, odd_bytes);
    tcase_add_test(t, module_limits);
    suite_add_tcase(s, t);
    t = tcase_create("typecheck");
    tcase_add_test(t, check_inst_api);
    tcase_add_test(t, check_for_yield);
    tcase_add_test(t, defines);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
