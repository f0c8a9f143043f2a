/*
 * The tile IR: data structures shared by the parser, printer, verifier,
 * passes, the LLVM lowering and the reference executor.
 *
 * Everything of a module lives in a few growable arrays owned by the module
 * and freed by tir_module_free(): instructions, values, blocks, an operand
 * pool and a string pool. Instructions, values and blocks refer to each other
 * by 32-bit index, never by pointer, so the arrays can grow and a pass can
 * rebuild a block's instruction list without touching anything else.
 * Index 0 of the value, instruction and block arrays is reserved ("none").
 *
 * The textual form is documented in docs/TIR.md.
 */
#ifndef TILEC_IR_H
#define TILEC_IR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---- opcodes ---------------------------------------------------------- */

typedef enum {
    OP_NONE,
#define OP(e, name, nargs, flags) OP_##e,
#include "ops.h"
#undef OP
    OP_COUNT
} TirOp;

typedef struct {
    const char *name;
    int nargs;      /* -1: variadic */
    unsigned flags; /* OPF_* */
} TirOpInfo;

extern const TirOpInfo tir_ops[OP_COUNT];
TirOp tir_op_lookup(const char *name, size_t len); /* OP_NONE if unknown */

/* ---- types ------------------------------------------------------------ */

typedef enum { ELEM_NONE, ELEM_I32, ELEM_I64, ELEM_F16, ELEM_BF16, ELEM_F32 } TirElem;
typedef enum { TY_NONE, TY_SCALAR, TY_PTR, TY_VIEW, TY_TILE } TirTypeKind;

/* Scalars: elem. Pointers: elem pointed to. Views: elem and rank (2 or 3).
 * Tiles: elem and a 2-D shape dim[0] x dim[1] (rows x cols), each a power
 * of two, at most TIR_MAX_TILE_DIM, at most TIR_MAX_TILE_ELEMS elements. */
typedef struct {
    uint8_t kind, elem, rank;
    uint32_t dim[2];
} TirType;

#define TIR_MAX_TILE_DIM   1024u
#define TIR_MAX_TILE_ELEMS 65536u
#define TIR_MAX_VIEW_RANK  3
#define TIR_MAX_NESTING    64   /* nested for loops */
#define TIR_MAX_INSTS      (1u << 20)

const char *tir_elem_name(TirElem e);
int tir_elem_is_float(TirElem e);
/* An f32 held in a double (TirInst.fval) and back, bit for bit: a NaN keeps
 * its payload and its quiet bit (a float -> double conversion would set
 * that bit, turning a signalling NaN the source spelled in hex into
 * another value). */
double tir_f32_value(uint32_t bits);
uint32_t tir_f32_bits(double v);
int tir_elem_bits(TirElem e);
int tir_type_eq(TirType a, TirType b);
TirType tir_scalar(TirElem e);
TirType tir_tile(TirElem e, uint32_t rows, uint32_t cols);
/* Writes e.g. "tile<64x64xf32>" into buf; returns buf. */
char *tir_type_str(TirType t, char *buf, size_t size);

/* ---- attributes -------------------------------------------------------- */

/* dot precision for f32 operands; PREC_DEFAULT takes the compile option. */
typedef enum {
    PREC_DEFAULT, PREC_IEEE, PREC_TF32_TRUNC, PREC_TF32_RNA, PREC_TF32_RNE, PREC_3XTF32,
    PREC_COUNT
} TirPrecision;
const char *tir_precision_name(TirPrecision p); /* "ieee", "tf32-rna", ... */
TirPrecision tir_precision_lookup(const char *s, size_t len); /* PREC_DEFAULT if unknown */

/* dot flags (in TirInst.i64), written `{accumulate = rn}`: the products of
 * each k-step are summed apart and added to the accumulator with a
 * round-to-nearest f32 add (tensor cores truncate when they accumulate). */
#define TIR_DOT_ACC_RN 1

/* round_tf32 modes */
typedef enum { ROUND_TRUNC, ROUND_RNA, ROUND_RNE, ROUND_COUNT } TirRound;
const char *tir_round_name(TirRound r); /* "trunc", "rna", "rne" */
int tir_round_lookup(const char *s, size_t len); /* -1 if unknown */

/* ---- the IR proper ----------------------------------------------------- */

typedef struct {
    uint32_t line, col; /* 1-based; 0 = unknown */
} TirLoc;

typedef enum { VAL_PARAM, VAL_RESULT, VAL_BLOCK_ARG } TirValueKind;

typedef struct {
    TirType type;
    uint8_t kind;   /* TirValueKind */
    uint32_t def;   /* VAL_RESULT: instruction; VAL_BLOCK_ARG: block; VAL_PARAM: kernel */
    uint32_t index; /* which result / block argument / parameter */
    uint32_t name;  /* string pool offset of the name without '%'; 0 = unnamed */
} TirValue;

typedef struct {
    uint16_t op;       /* TirOp */
    TirLoc loc;
    TirType type;      /* result type (OPF_RESULT ops); TY_NONE otherwise */
    uint32_t result;   /* first result value; 0 if none */
    uint32_t nresults; /* 1 for OPF_RESULT ops, number of iter args for for */
    uint32_t args;     /* operand pool offset of the operands (value indices) */
    uint32_t nargs;
    uint32_t body;     /* for: the body block */
    /* attributes; which ones an op uses is listed in docs/TIR.md */
    int32_t ival;      /* program_id/num_programs axis, reduce axis, precision, round mode, view rank */
    int64_t i64;       /* const integer value; dot: TIR_DOT_* flags */
    double fval;       /* const/full float value, load padding */
    uint32_t str;      /* inline_ptx template (string pool offset) */
} TirInst;

/* A straight-line list of instructions. For a for body, arg 0 is the
 * induction variable (i32) and args 1.. are the loop-carried values; the
 * last instruction is a yield with one operand per loop-carried value. */
typedef struct {
    uint32_t insts;  /* operand pool offset of the instruction indices */
    uint32_t ninsts;
    uint32_t args;   /* operand pool offset of the argument value indices */
    uint32_t nargs;
    uint32_t parent; /* the for instruction owning it; 0 for a kernel body */
} TirBlock;

typedef struct {
    uint32_t name;    /* string pool offset, without '@' */
    TirLoc loc;
    uint32_t params;  /* operand pool offset of the parameter value indices */
    uint32_t nparams;
    uint32_t body;    /* block */
    uint32_t grid[3]; /* grid(...) attribute; 0 = not given */
    uint32_t warps;   /* warps(...) attribute; 4 when not given */
} TirKernel;

typedef struct TirModule {
    char *file;      /* source file name for diagnostics (owned) */
    TirInst *insts;   uint32_t ninsts, cap_insts;
    TirValue *values; uint32_t nvalues, cap_values;
    TirBlock *blocks; uint32_t nblocks, cap_blocks;
    TirKernel *kernels; uint32_t nkernels, cap_kernels;
    uint32_t *pool;   uint32_t npool, cap_pool;  /* operand/list pool */
    char *strs;       uint32_t nstrs, cap_strs;  /* string pool; offset 0 is "" */
    int oom;          /* an allocation failed; the module is unusable */
} TirModule;

/* Whether a kernel name can be the PTX .entry name it becomes: a PTX
 * identifier ([A-Za-z][A-Za-z0-9_]* or _[A-Za-z0-9_]+), not the predefined
 * WARP_SZ, not starting with the __tilec_ that tilec's own globals use. */
int tir_kernel_name_ok(const char *s, size_t n);

/* Creates an empty module; NULL on allocation failure. */
TirModule *tir_module_new(const char *file);
void tir_module_free(TirModule *m);

/* Builders. They return 0 (and set m->oom) when memory runs out or an array
 * would pass its limit; callers check m->oom once at the end. */
uint32_t tir_add_string(TirModule *m, const char *s, size_t len);
uint32_t tir_add_value(TirModule *m, TirType t, TirValueKind kind, uint32_t def, uint32_t index, uint32_t name);
uint32_t tir_add_inst(TirModule *m, TirOp op, TirLoc loc);
uint32_t tir_add_block(TirModule *m);
uint32_t tir_pool_push(TirModule *m, const uint32_t *items, uint32_t n); /* returns offset */
uint32_t tir_add_kernel(TirModule *m); /* UINT32_MAX on failure (0 is a valid kernel) */

/* Creates an instruction with operands `args` and, if type.kind != TY_NONE,
 * one result value of that type. Returns the instruction index. */
uint32_t tir_build(TirModule *m, TirOp op, TirLoc loc, TirType type, const uint32_t *args, uint32_t nargs);

static inline const uint32_t *tir_args(const TirModule *m, const TirInst *in) { return m->pool + in->args; }
static inline const uint32_t *tir_block_insts(const TirModule *m, const TirBlock *b) { return m->pool + b->insts; }
static inline const uint32_t *tir_block_args(const TirModule *m, const TirBlock *b) { return m->pool + b->args; }
static inline const char *tir_str(const TirModule *m, uint32_t off) { return m->strs + off; }
static inline TirType tir_value_type(const TirModule *m, uint32_t v) { return m->values[v].type; }

/* The instruction defining value v, or 0 for parameters and block arguments. */
uint32_t tir_value_def_inst(const TirModule *m, uint32_t v);

/* ---- strings and diagnostics -------------------------------------------- */

typedef struct {
    char *data;
    size_t len, cap;
    int oom;
} StrBuf;

void sb_init(StrBuf *b);
void sb_free(StrBuf *b);
void sb_putn(StrBuf *b, const char *s, size_t n);
void sb_puts(StrBuf *b, const char *s);
void sb_printf(StrBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_vprintf(StrBuf *b, const char *fmt, va_list ap);
/* Returns the buffer's contents (never NULL) and gives up ownership. */
char *sb_take(StrBuf *b);

/* Diagnostics in compiler style, appended to a log:
 *   file:line:col: error: message
 *     source line
 *     ^
 * The source text (if given) is used to print the line and caret. */
typedef struct {
    StrBuf log;
    const char *file;
    const char *src; size_t srclen;
    int nerrors;
    int max_errors; /* stop recording after this many (default 20) */
} Diag;

void diag_init(Diag *d, const char *file, const char *src, size_t srclen);
void diag_free(Diag *d);
void diag_error(Diag *d, TirLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void diag_note(Diag *d, TirLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Something that compiles but that the user most likely does not want
 * (always shown; the compile succeeds). */
void diag_warning(Diag *d, TirLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* What a pass did or why it did not (--remarks); not an error. */
void diag_remark(Diag *d, TirLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- front end and checks ----------------------------------------------- */

/* Named integer constants that a source uses as $NAME or ${NAME} wherever
 * an integer may stand, tile shapes included (tile<${BM}x32xf32>): one
 * source, many tile shapes (the command's -DNAME=VALUE). */
enum { TIR_MAX_DEFINES = 16, TIR_DEFINE_NAME = 32 };
typedef struct {
    char name[TIR_DEFINE_NAME]; /* [A-Za-z_][A-Za-z0-9_]* */
    char text[24];              /* the value as written back: decimal */
    int64_t value;
} TirDefine;
typedef struct {
    TirDefine d[TIR_MAX_DEFINES];
    int n;
} TirDefines;
/* Sets name=value (s: "NAME=VALUE", decimal VALUE) in defs, replacing an
 * earlier value of the name. 0, or -1 with why (a static string). */
int tir_define(TirDefines *defs, const char *s, const char **why);

/* Parses .tir source (not necessarily NUL-terminated) into m. Returns 0 on
 * success; otherwise the number of errors, each reported to d. Never reads
 * past src+len, never aborts, bounded recursion. defs may be NULL. */
int tir_parse(TirModule *m, const char *src, size_t len, Diag *d);
int tir_parse_defs(TirModule *m, const char *src, size_t len, const TirDefines *defs, Diag *d);

/* Prints the module in the textual form tir_parse reads back (round trip). */
void tir_print(const TirModule *m, StrBuf *out);

/* typecheck.c: checks instruction i's operands and attributes against its
 * op's rules (docs/TIR.md) and computes its result type: for OPF_TYPED ops
 * in->type holds the written type, which is checked; for the others the
 * inferred type is returned (and compared with in->type if that is not
 * TY_NONE). For `for`, *result is unused (results take the init types).
 * Reports errors at in->loc. Returns the number of errors (0 = well typed). */
int tir_check_inst(const TirModule *m, uint32_t i, TirType *result, Diag *d);

/* typecheck.c: the type a number written as operand k of op takes (the one
 * rule both the parser and the printer use, so round trips agree); TY_NONE
 * where a literal is not allowed. is_lit marks which operands are literals,
 * written is the op's written result type, loop the enclosing for. */
TirType tir_literal_type(const TirModule *m, TirOp op, const uint32_t *args, const uint8_t *is_lit,
                         uint32_t nargs, uint32_t k, TirType written, uint32_t loop);

/* Checks types, shapes, dominance and loop structure. Returns the number of
 * errors reported to d (0 = valid). */
int tir_verify(const TirModule *m, Diag *d);

#endif
