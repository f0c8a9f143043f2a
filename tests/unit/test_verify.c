/*
 * ir/verify.c on modules built by hand with the ir.h builders and on parsed
 * modules corrupted field by field: each corruption gives at least one error
 * (with a telling message) and never a crash; a random-mutation fuzz run
 * under ASan/UBSan checks the "never crash" part more widely.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "reference/exec.h"

/* ---- a kernel built with the builders ----
 *   kernel @hand(%A: ptr<f32>) grid(1) {
 *     %c0 = const 0 : i32;  %c4 = const 4 : i32;  %c1 = const 1 : i32
 *     %z = zeros : tile<4x4xf32>
 *     %r = for %i = %c0 to %c4 step %c1 iter(%c = %z) {
 *       %one = const 1.0 : f32;  %s = add %c, %one;  yield %s
 *     }
 *     %v = view %A [%c4, %c4] strides [%c4, %c1]
 *     store %r, %v[%c0, %c0]
 *   }
 */
typedef struct {
    TirModule *m;
    uint32_t k, body, pA;
    uint32_t i_c0, i_c4, i_c1, i_z, i_for, i_one, i_add, i_yield, i_view, i_store;
    uint32_t fbody, iv, cv, res;
} Hand;

static uint32_t res(const TirModule *m, uint32_t i) { return m->insts[i].result; }

static Hand build_hand(void)
{
    Hand h;
    TirModule *m = h.m = tir_module_new("hand.tir");
    ck_assert_ptr_nonnull(m);
    TirLoc loc = {1, 1};
    TirType i32 = tir_scalar(ELEM_I32), f32 = tir_scalar(ELEM_F32), tile = tir_tile(ELEM_F32, 4, 4);
    h.k = tir_add_kernel(m);
    m->kernels[h.k].name = tir_add_string(m, "hand", 4);
    m->kernels[h.k].grid[0] = 1;
    h.body = tir_add_block(m);
    m->kernels[h.k].body = h.body;
    h.pA = tir_add_value(m, (TirType){.kind = TY_PTR, .elem = ELEM_F32}, VAL_PARAM, h.k, 0, tir_add_string(m, "A", 1));
    m->kernels[h.k].params = tir_pool_push(m, &h.pA, 1);
    m->kernels[h.k].nparams = 1;

    h.i_c0 = tir_build(m, OP_CONST, loc, i32, NULL, 0);
    h.i_c4 = tir_build(m, OP_CONST, loc, i32, NULL, 0);
    m->insts[h.i_c4].i64 = 4;
    h.i_c1 = tir_build(m, OP_CONST, loc, i32, NULL, 0);
    m->insts[h.i_c1].i64 = 1;
    h.i_z = tir_build(m, OP_ZEROS, loc, tile, NULL, 0);

    uint32_t fargs[4] = {res(m, h.i_c0), res(m, h.i_c4), res(m, h.i_c1), res(m, h.i_z)};
    h.i_for = tir_build(m, OP_FOR, loc, (TirType){0}, fargs, 4);
    h.res = tir_add_value(m, tile, VAL_RESULT, h.i_for, 0, 0);
    m->insts[h.i_for].result = h.res;
    m->insts[h.i_for].nresults = 1;
    h.fbody = tir_add_block(m);
    m->blocks[h.fbody].parent = h.i_for;
    m->insts[h.i_for].body = h.fbody;
    h.iv = tir_add_value(m, i32, VAL_BLOCK_ARG, h.fbody, 0, 0);
    h.cv = tir_add_value(m, tile, VAL_BLOCK_ARG, h.fbody, 1, 0);
    uint32_t bargs[2] = {h.iv, h.cv};
    m->blocks[h.fbody].args = tir_pool_push(m, bargs, 2);
    m->blocks[h.fbody].nargs = 2;
    h.i_one = tir_build(m, OP_CONST, loc, f32, NULL, 0);
    m->insts[h.i_one].fval = 1.0;
    uint32_t aargs[2] = {h.cv, res(m, h.i_one)};
    h.i_add = tir_build(m, OP_ADD, loc, tile, aargs, 2);
    uint32_t yarg = res(m, h.i_add);
    h.i_yield = tir_build(m, OP_YIELD, loc, (TirType){0}, &yarg, 1);
    uint32_t binsts[3] = {h.i_one, h.i_add, h.i_yield};
    m->blocks[h.fbody].insts = tir_pool_push(m, binsts, 3);
    m->blocks[h.fbody].ninsts = 3;

    uint32_t vargs[5] = {h.pA, res(m, h.i_c4), res(m, h.i_c4), res(m, h.i_c4), res(m, h.i_c1)};
    h.i_view = tir_build(m, OP_VIEW, loc, (TirType){.kind = TY_VIEW, .elem = ELEM_F32, .rank = 2}, vargs, 5);
    m->insts[h.i_view].ival = 2;
    uint32_t sargs[4] = {h.res, res(m, h.i_view), res(m, h.i_c0), res(m, h.i_c0)};
    h.i_store = tir_build(m, OP_STORE, loc, (TirType){0}, sargs, 4);
    uint32_t kinsts[7] = {h.i_c0, h.i_c4, h.i_c1, h.i_z, h.i_for, h.i_view, h.i_store};
    m->blocks[h.body].insts = tir_pool_push(m, kinsts, 7);
    m->blocks[h.body].ninsts = 7;
    ck_assert(!m->oom);
    return h;
}

/* Verifies m; returns the error count and the log in *log (caller frees). */
static int verify(const TirModule *m, char **log)
{
    Diag d;
    diag_init(&d, "t.tir", NULL, 0);
    d.max_errors = 1000;
    int n = tir_verify(m, &d);
    ck_assert_int_eq(n > 0, d.nerrors > 0); /* every error counted is reported */
    if (log)
        *log = d.log.data ? strdup(d.log.data) : strdup("");
    diag_free(&d);
    return n;
}

static void expect_error(const TirModule *m, const char *substr)
{
    char *log;
    int n = verify(m, &log);
    ck_assert_msg(n > 0, "no error for a corrupt module (expected '%s')", substr);
    ck_assert_msg(!substr || strstr(log, substr), "expected '%s' in:\n%s", substr, log);
    free(log);
}

START_TEST(test_hand_valid_and_runs)
{
    Hand h = build_hand();
    char *log;
    ck_assert_msg(verify(h.m, &log) == 0, "%s", log);
    free(log);
    float out[16] = {0};
    void *p = out;
    void *args[] = {&p};
    StrBuf err;
    sb_init(&err);
    ck_assert_msg(tir_exec(h.m, 0, NULL, args, PREC_DEFAULT, &err) == 0, "%s", err.data);
    sb_free(&err);
    for (int k = 0; k < 16; k++)
        ck_assert(out[k] == 4.0f);
    tir_module_free(h.m);
}
END_TEST

/* Each case corrupts a fresh hand-built module one way. */
START_TEST(test_hand_corruptions)
{
    enum { NCASES = 34 };
    static const char *const want[NCASES] = {
        "does not exist", "does not exist", "before its definition", "more than once", "more than once",
        "does not point back", "invalid opcode", "invalid opcode", "outside the module's pool",
        "outside the module's pool", "does not exist", "no body block", "no body block", "parent",
        "arguments", "must end with 'yield'", "may only end", "may only end", "yield", "results",
        "warps", "warps", "no body block", "does not exist", "does not point back", "outside the block",
        NULL, "invalid type", "wrong number of operands", "defines no value", "looks like a loop body",
        "more than once", "outside the module's values", "defined more than once"};
    for (int c = 0; c < NCASES; c++) {
        Hand h = build_hand();
        TirModule *m = h.m;
        TirInst *add = &m->insts[h.i_add];
        TirBlock *kb = &m->blocks[h.body], *fb = &m->blocks[h.fbody];
        switch (c) {
        case 0: m->pool[add->args] = m->nvalues + 100; break;          /* operand out of range */
        case 1: m->pool[add->args] = 0; break;                         /* operand "none" */
        case 2: /* use before definition: swap the view and the zeros */
            m->pool[kb->insts + 3] = h.i_view, m->pool[kb->insts + 5] = h.i_z;
            break;
        case 3: m->insts[h.i_c4].result = res(m, h.i_c0); break;       /* one value, two definers */
        case 4: m->pool[kb->insts + 1] = h.i_c0; break;                /* instruction listed twice */
        case 5: m->values[res(m, h.i_c1)].def = h.i_c0; break;         /* def pointer wrong */
        case 6: add->op = 0; break;
        case 7: add->op = OP_COUNT + 3; break;
        case 8: add->args = m->npool - 1; break;                       /* operand list past the pool */
        case 9: kb->insts = m->npool - 2; break;                       /* block list past the pool */
        case 10: m->pool[kb->insts + 2] = m->ninsts + 7; break;        /* instruction out of range */
        case 11: m->insts[h.i_for].body = 0; break;
        case 12: m->insts[h.i_for].body = m->nblocks + 1; break;
        case 13: fb->parent = h.i_add; break;
        case 14: fb->nargs = 1; break;
        case 15: fb->ninsts = 2; break;                                /* the yield dropped */
        case 16: { /* a second yield in the middle of the body */
            uint32_t ya = res(m, h.i_add);
            uint32_t y2 = tir_build(m, OP_YIELD, (TirLoc){2, 1}, (TirType){0}, &ya, 1);
            uint32_t list[4] = {h.i_one, h.i_add, y2, h.i_yield};
            fb = &m->blocks[h.fbody];
            fb->insts = tir_pool_push(m, list, 4);
            fb->ninsts = 4;
            break;
        }
        case 17: /* a yield at the end of the kernel body */
            m->pool[kb->insts + 6] = tir_build(m, OP_YIELD, (TirLoc){3, 1}, (TirType){0}, NULL, 0);
            break;
        case 18: m->insts[h.i_yield].nargs = 0; break;                /* yield count */
        case 19: m->insts[h.i_for].nresults = 2; break;
        case 20: m->kernels[0].warps = 3; break;
        case 21: m->kernels[0].warps = 0; break;
        case 22: m->kernels[0].body = m->nblocks; break;
        case 23: m->pool[m->kernels[0].params] = m->nvalues; break;   /* parameter out of range */
        case 24: m->values[h.pA].kind = VAL_RESULT; break;
        case 25: /* a loop-body value used after the loop */
            m->pool[m->insts[h.i_store].args] = res(m, h.i_add);
            break;
        case 26: /* result type disagrees with the op: add's value made i32 */
            m->values[res(m, h.i_add)].type = tir_scalar(ELEM_I32);
            break;
        case 27: m->values[res(m, h.i_z)].type.dim[0] = 3; break;      /* not a power of two */
        case 28: m->insts[h.i_view].nargs = 4; break;
        case 29: m->insts[h.i_store].result = res(m, h.i_c0), m->insts[h.i_store].nresults = 1; break;
        case 30: m->kernels[0].body = h.fbody; break;                  /* the loop body as kernel body */
        case 31: m->pool[fb->insts] = h.i_c0; break;                   /* an outer inst inside the loop */
        case 32: m->insts[h.i_for].result = m->nvalues; break;
        case 33: { /* a second kernel with the same name */
            uint32_t k2 = tir_add_kernel(m);
            m->kernels[k2] = m->kernels[0];
            m->kernels[k2].body = tir_add_block(m);
            m->kernels[k2].nparams = 0;
            break;
        }
        }
        expect_error(m, want[c]);
        tir_module_free(m);
    }
}
END_TEST

/* A module whose names point nowhere still gets messages, not a crash. */
START_TEST(test_bad_names)
{
    Hand h = build_hand();
    h.m->kernels[0].name = h.m->nstrs + 10;
    h.m->values[res(h.m, h.i_c0)].name = UINT32_MAX;
    h.m->pool[h.m->insts[h.i_add].args] = res(h.m, h.i_view) + 1000;
    expect_error(h.m, "invalid name");
    tir_module_free(h.m);
    Diag d;
    diag_init(&d, "none", NULL, 0);
    ck_assert_int_gt(tir_verify(NULL, &d), 0);
    diag_free(&d);
}
END_TEST

/* Parsed kernels verify; loops nest up to TIR_MAX_NESTING. */
static TirModule *parse_text(const char *src)
{
    TirModule *m = tir_module_new("p.tir");
    Diag d;
    diag_init(&d, "p.tir", src, strlen(src));
    int n = tir_parse(m, src, strlen(src), &d);
    ck_assert_msg(n == 0, "%s", d.log.data);
    diag_free(&d);
    return m;
}

START_TEST(test_parsed_and_nesting)
{
    /* TIR_MAX_NESTING loops carrying nothing, one inside the other */
    StrBuf b;
    sb_init(&b);
    sb_puts(&b, "kernel @n(%X: ptr<i32>) grid(1) {\n");
    for (int d = 0; d < TIR_MAX_NESTING; d++)
        sb_printf(&b, "for %%i%d = 0 to 2 step 1 {\n", d);
    for (int d = 0; d < TIR_MAX_NESTING; d++)
        sb_puts(&b, "yield\n}\n");
    sb_puts(&b, "}\n");
    char *src = sb_take(&b);
    TirModule *m = parse_text(src);
    ck_assert_int_eq(verify(m, NULL), 0);
    /* one more level, grafted by hand: the innermost body gets a for of its own */
    uint32_t inner = 0;
    for (uint32_t i = 1; i < m->ninsts; i++)
        if (m->insts[i].op == OP_FOR)
            inner = i; /* the parser creates them outside in */
    uint32_t c0 = tir_build(m, OP_CONST, (TirLoc){0}, tir_scalar(ELEM_I32), NULL, 0);
    uint32_t cv = m->insts[c0].result;
    uint32_t fa[3] = {cv, cv, cv};
    uint32_t f = tir_build(m, OP_FOR, (TirLoc){0}, (TirType){0}, fa, 3);
    uint32_t fbody = tir_add_block(m);
    m->blocks[fbody].parent = f;
    m->insts[f].body = fbody;
    uint32_t iv = tir_add_value(m, tir_scalar(ELEM_I32), VAL_BLOCK_ARG, fbody, 0, 0);
    m->blocks[fbody].args = tir_pool_push(m, &iv, 1);
    m->blocks[fbody].nargs = 1;
    uint32_t y = tir_build(m, OP_YIELD, (TirLoc){0}, (TirType){0}, NULL, 0);
    m->blocks[fbody].insts = tir_pool_push(m, &y, 1);
    m->blocks[fbody].ninsts = 1;
    TirBlock *ib = &m->blocks[m->insts[inner].body];
    uint32_t list[3] = {c0, f, m->pool[ib->insts + ib->ninsts - 1]};
    ib->insts = tir_pool_push(m, list, 3);
    ib->ninsts = 3;
    ck_assert(!m->oom);
    expect_error(m, "nest more than");
    tir_module_free(m);
    free(src);
}
END_TEST

/* A block that is its own loop's body's ancestor: the walk must stop. */
START_TEST(test_cycle)
{
    Hand h = build_hand();
    /* the for body lists the for itself */
    TirBlock *fb = &h.m->blocks[h.fbody];
    uint32_t list[4] = {h.i_one, h.i_add, h.i_for, h.i_yield};
    fb->insts = tir_pool_push(h.m, list, 4);
    fb->ninsts = 4;
    expect_error(h.m, "more than once");
    tir_module_free(h.m);
}
END_TEST

/* Random mutations of a parsed matmul: never a crash (ASan/UBSan watch). */
static const char *FUZZ_SRC =
    "kernel @mm(%A: ptr<f32>, %B: ptr<f32>, %C: ptr<f32>, %M: i32, %N: i32, %K: i32) warps(8) {\n"
    "  %pm = program_id 0\n"
    "  %m0 = mul %pm, 32\n"
    "  %va = view %A [%M, %K] strides [%K, 1]\n"
    "  %vb = view %B [%K, %N] strides [%N, 1]\n"
    "  %vc = view %C [%M, %N] strides [%N, 1]\n"
    "  %z = zeros : tile<32x32xf32>\n"
    "  %acc, %n = for %k = 0 to %K step 16 iter(%c = %z, %cnt = %pm) {\n"
    "    %a = load %va[%m0, %k] {padding = 1.0} : tile<32x16xf32>\n"
    "    %b = load %vb[%k, 0] : tile<16x32xf32>\n"
    "    %r = round_tf32 %a {mode = rne}\n"
    "    %d = dot %r, %b, %c {precision = 3xtf32} : tile<32x32xf32>\n"
    "    %e = reduce_max %d {axis = 1}\n"
    "    %f = broadcast %e : tile<32x32xf32>\n"
    "    %g = sub %d, %f\n"
    "    %n1 = add %cnt, 1\n"
    "    yield %g, %n1\n"
    "  }\n"
    "  %x = inline_ptx \"cvt.rna.tf32.f32 $0, $1;\" %acc : tile<32x32xf32>\n"
    "  store %x, %vc[%m0, 0]\n"
    "}\n";

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* a plausible-or-garbage index near the valid range */
static uint32_t near(uint32_t n)
{
    switch (rnd() % 4) {
    case 0: return rnd() % (n + 3);
    case 1: return 0;
    case 2: return n + rnd() % 3;
    default: return rnd();
    }
}

START_TEST(test_fuzz)
{
    TirModule *base = parse_text(FUZZ_SRC);
    ck_assert_int_eq(verify(base, NULL), 0);
    int rejected = 0;
    for (int iter = 0; iter < 20000; iter++) {
        TirModule *m = parse_text(FUZZ_SRC);
        int nmut = 1 + (int)(rnd() % 3);
        for (int k = 0; k < nmut; k++) {
            uint32_t i = 1 + rnd() % (m->ninsts - 1), v = 1 + rnd() % (m->nvalues - 1);
            uint32_t b = 1 + rnd() % (m->nblocks - 1);
            switch (rnd() % 14) {
            case 0: m->pool[rnd() % m->npool] = near(m->nvalues); break;
            case 1: m->pool[rnd() % m->npool] = near(m->ninsts); break;
            case 2: m->insts[i].op = (uint16_t)near(OP_COUNT); break;
            case 3: m->insts[i].nargs = near(8); break;
            case 4: m->insts[i].args = near(m->npool); break;
            case 5: m->insts[i].result = near(m->nvalues); break;
            case 6: m->insts[i].nresults = near(3); break;
            case 7: m->insts[i].body = near(m->nblocks); break;
            case 8: m->insts[i].ival = (int32_t)near(6) - 1; break;
            case 9: m->values[v].kind = (uint8_t)near(3); m->values[v].def = near(m->ninsts); break;
            case 10: m->values[v].type.kind = (uint8_t)near(5); m->values[v].type.elem = (uint8_t)near(6); break;
            case 11: m->blocks[b].ninsts = near(12); m->blocks[b].nargs = near(4); break;
            case 12: m->blocks[b].parent = near(m->ninsts); m->blocks[b].insts = near(m->npool); break;
            default: m->insts[i].str = near(m->nstrs); m->values[v].name = near(m->nstrs); break;
            }
        }
        rejected += verify(m, NULL) > 0;
        tir_module_free(m);
    }
    ck_assert_int_gt(rejected, 15000); /* almost every mutation is caught */
    tir_module_free(base);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("verify");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_hand_valid_and_runs);
    tcase_add_test(tc, test_hand_corruptions);
    tcase_add_test(tc, test_bad_names);
    tcase_add_test(tc, test_parsed_and_nesting);
    tcase_add_test(tc, test_cycle);
    tcase_add_test(tc, test_fuzz);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
