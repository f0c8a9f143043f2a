/*
 * The tile IR's operations: the one place an op is declared.
 *
 * Included with OP(...) defined to build the opcode enum, the name table,
 * the verifier's arity checks and the lowering/executor dispatch tables.
 *
 *   OP(enum, name, nargs, flags)
 *     nargs  fixed operand count, or -1 when the count depends on the op
 *            (view: 1 + 2*rank, load: 1 + rank, store: 2 + rank, for,
 *            yield, inline_ptx)
 *     flags  OPF_* below
 */
#ifndef OPF_RESULT
#define OPF_RESULT   0x01 /* defines exactly one value */
#define OPF_PURE     0x02 /* no side effects; may be removed if unused */
#define OPF_EWISE    0x04 /* element-wise: scalars, tiles, or a tile with scalars */
#define OPF_FLOAT    0x08 /* element type must be a float (f32/f16/bf16) */
#define OPF_INT      0x10 /* element type must be an integer (i32/i64) */
#define OPF_SCALAR   0x20 /* operands and result are scalars only */
#define OPF_REGION   0x40 /* owns a body block */
#define OPF_TYPED    0x80 /* result type is written after ':' (not inferred) */
#endif

/*  enum           name             nargs  flags */
OP(CONST,        "const",            0,  OPF_RESULT | OPF_PURE | OPF_TYPED)
OP(PROGRAM_ID,   "program_id",       0,  OPF_RESULT | OPF_PURE)
OP(NUM_PROGRAMS, "num_programs",     0,  OPF_RESULT | OPF_PURE)
OP(ADD,          "add",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(SUB,          "sub",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(MUL,          "mul",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(DIV,          "div",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(REM,          "rem",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE | OPF_INT)
OP(MIN,          "min",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(MAX,          "max",              2,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(CDIV,         "cdiv",             2,  OPF_RESULT | OPF_PURE | OPF_SCALAR | OPF_INT)
OP(NEG,          "neg",              1,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(ABS,          "abs",              1,  OPF_RESULT | OPF_PURE | OPF_EWISE)
OP(EXP,          "exp",              1,  OPF_RESULT | OPF_PURE | OPF_EWISE | OPF_FLOAT)
OP(SQRT,         "sqrt",             1,  OPF_RESULT | OPF_PURE | OPF_EWISE | OPF_FLOAT)
OP(FMA,          "fma",              3,  OPF_RESULT | OPF_PURE | OPF_EWISE | OPF_FLOAT)
OP(CAST,         "cast",             1,  OPF_RESULT | OPF_PURE | OPF_TYPED)
OP(SPLAT,        "splat",            1,  OPF_RESULT | OPF_PURE | OPF_TYPED)
OP(BROADCAST,    "broadcast",        1,  OPF_RESULT | OPF_PURE | OPF_TYPED)
OP(ZEROS,        "zeros",            0,  OPF_RESULT | OPF_PURE | OPF_TYPED)
OP(FULL,         "full",             0,  OPF_RESULT | OPF_PURE | OPF_TYPED)
OP(VIEW,         "view",            -1,  OPF_RESULT | OPF_PURE)
OP(LOAD,         "load",            -1,  OPF_RESULT | OPF_TYPED)
OP(STORE,        "store",           -1,  0)
OP(DOT,          "dot",              3,  OPF_RESULT | OPF_PURE)
OP(REDUCE_SUM,   "reduce_sum",       1,  OPF_RESULT | OPF_PURE)
OP(REDUCE_MAX,   "reduce_max",       1,  OPF_RESULT | OPF_PURE)
OP(ROUND_TF32,   "round_tf32",       1,  OPF_RESULT | OPF_PURE | OPF_EWISE | OPF_FLOAT)
OP(MASK_NONFINITE,"mask_nonfinite",  2,  OPF_RESULT | OPF_PURE | OPF_EWISE | OPF_FLOAT)
OP(INLINE_PTX,   "inline_ptx",      -1,  OPF_RESULT | OPF_TYPED)
OP(FOR,          "for",             -1,  OPF_REGION)
OP(YIELD,        "yield",           -1,  0)
