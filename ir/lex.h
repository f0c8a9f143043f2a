/*
 * The .tir lexer's interface to the parser (private to ir/): the tokens,
 * the parser state both share, and the error reporting both use.
 *
 * lex.c turns source bytes into tokens one at a time (lex_next); parse.c is
 * the recursive-descent parser on top. They share one state struct because
 * recovery is shared: a lexical error marks the current statement
 * (lexerr), so that the parser stays quiet about its consequences, and the
 * parser's look-ahead (looks_like_def) saves and restores the lexer's
 * position with a plain struct copy.
 */
#ifndef TILEC_LEX_H
#define TILEC_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ir.h"

enum { T_EOF, T_VALUE, T_KNAME, T_WORD, T_INT, T_FLOAT, T_STRING, T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE,
       T_LBRACK, T_RBRACK, T_LT, T_GT, T_COMMA, T_COLON, T_EQ };

typedef struct {
    int kind;
    const char *s; size_t n; /* text in the source; names without the sigil */
    TirLoc loc;
    uint8_t nl, bad, hex;    /* first on its line; malformed (reported); 0x... */
    int64_t i;
    double f;
} Tok;

/* Name table entry; keys point into the source, which outlives the parse.
 * S_PENDING: named by the statement being parsed; S_LOOP: a for's result,
 * during its body; S_UNDEF: used undefined (reported once). */
enum { S_DEF, S_PENDING, S_LOOP, S_UNDEF };
typedef struct {
    const char *s; size_t n;
    uint32_t val, scope; /* value (0: poison), defining block */
    TirLoc loc;          /* of the defining name: identifies its statement */
    int state;
} Sym;
typedef struct { Sym *e; size_t cap, n; } Map;

typedef struct { uint32_t v; uint8_t lit; Tok t; } Opnd;
typedef struct { Tok name, val; } Attr;

typedef struct TirParser {
    TirModule *m;
    Diag *d;
    const TirDefines *defs; /* $NAME constants; may be NULL */
    const char *src;
    size_t len, pos;
    uint32_t line, col;
    int bol, quiet, stop, err0, limit, eof_reported;
    int bad;            /* the current statement has an error */
    int lexing, lexerr; /* in lex_next(); a lexical error in this statement */
    int lbrace;         /* '{' minus '}' so far on the current line */
    unsigned long ntok;
    Tok cur;
    TirLoc prev_end;
    StrBuf str;                                /* contents of the last string */
    uint32_t *insts; size_t ninsts, cap_insts; /* instructions of open blocks */
    Opnd *ops; size_t nops, cap_ops;           /* operands being parsed */
    uint32_t *args; uint8_t *islit; size_t cap_args;
    Tok *names; size_t nnames, cap_names;      /* names of open statements */
    Map syms, kernels;
    int depth;
    uint32_t scope[TIR_MAX_NESTING + 1], loop[TIR_MAX_NESTING + 1];
} P;

/* At most 40 bytes of a token, for messages. */
#define TXT(t) (int)((t)->n < 40 ? (t)->n : 40), (t)->s

static inline int is_digit(int c) { return c >= '0' && c <= '9'; }
static inline int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/* The define named s[0..n) in defs (may be NULL), or NULL. */
const TirDefine *lex_define_find(const TirDefines *defs, const char *s, size_t n);
static inline int text_is(const Tok *t, const char *w) { return t->n == strlen(w) && memcmp(t->s, w, t->n) == 0; }

/* Reports an error at loc unless the parser is quiet (look-ahead), stopped
 * (error limit) or already reported a lexical error in this statement;
 * marks the statement bad. */
void lex_err(P *p, TirLoc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Reports running out of memory (once) and stops the parse. */
void lex_oom(P *p);
/* Makes the next token current (p->cur). Lexical errors are reported here
 * and the offending bytes skipped, so the parser sees only valid tokens. */
void lex_next(P *p);

/* The value of literal token t as element type e: integer bits in *iv,
 * the float (rounded to f32) in *fv. 0 after an error (reported). */
int lex_lit_value(P *p, const Tok *t, TirElem e, int64_t *iv, double *fv);
/* The same, for values kept in a double (full, load padding): an integer
 * that a double cannot hold exactly is an error. */
int lex_lit_fval(P *p, const Tok *t, TirElem e, double *fv);

#endif
