/*
 * The .tir lexer (tokens: docs/TIR.md, "Lexical structure"; interface:
 * lex.h). Reads only src[0..len), needs no NUL, and reports each malformed
 * token once, skipping its bytes, so that the parser sees valid tokens only.
 */
#include "lex.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- errors ---- */

void lex_err(P *p, TirLoc loc, const char *fmt, ...)
{
    if (p->stop || p->quiet || p->lexerr) return;
    p->lexerr = p->lexing;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(p->d, loc, "%s", msg);
    p->bad = 1;
    p->stop = p->d->nerrors >= p->limit;
}

void lex_oom(P *p)
{
    if (!p->stop)
        diag_error(p->d, p->cur.loc, "out of memory");
    p->stop = 1;
}

/* ---- tokens ---- */

static int is_name_char(int c) { return is_alpha(c) || is_digit(c) || c == '.'; }
static int at(P *p, size_t off) { return p->pos + off < p->len ? (unsigned char)p->src[p->pos + off] : -1; }
static void skip_n(P *p, size_t n) { p->pos += n, p->col += (uint32_t)n; } /* no newline inside */

/* Classifies a run that starts with a digit or '-digit': an integer, a float
 * or, when it is no number, a word such as 64x64xf32 or 3xtf32. */
static void lex_number(P *p, Tok *t)
{
    const char *s = t->s;
    size_t n = t->n, neg = s[0] == '-', j;
    uint64_t u = 0;
    int over = 0;
    if (n - neg > 2 && s[neg] == '0' && (s[neg + 1] | 32) == 'x') {
        for (j = neg + 2; j < n; j++) {
            int c = s[j] | 32, dv = is_digit(s[j]) ? s[j] - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
            if (dv < 0) break;
            over |= u >> 60 != 0;
            u = u << 4 | (uint64_t)dv;
        }
        if (j < n) goto word;
        t->kind = T_INT, t->hex = 1;
        t->i = u > INT64_MAX ? -(int64_t)(~u) - 1 : (int64_t)u; /* the 64-bit pattern */
        if (neg || over)
            lex_err(p, t->loc, neg ? "negative hexadecimal literals are not allowed: '%.*s'"
                                   : "'%.*s' does not fit in 64 bits", TXT(t)), t->bad = 1, t->i = 0;
        return;
    }
    for (j = neg; j < n && is_digit(s[j]); j++) {
        over |= u > (UINT64_MAX - 9) / 10;
        u = u * 10 + (uint64_t)(s[j] - '0');
    }
    if (j == n) {
        t->kind = T_INT;
        if (over || u > (uint64_t)INT64_MAX + neg)
            lex_err(p, t->loc, "integer literal '%.*s' does not fit in 64 bits", TXT(t)), t->bad = 1;
        else
            t->i = neg ? (int64_t)(0 - u) : (int64_t)u;
        return;
    }
    size_t k = j, e0;
    int frac = 0;
    if (s[k] == '.')
        for (frac = 1, k++; k < n && is_digit(s[k]); k++)
            ;
    if (k < n && (s[k] | 32) == 'e') {
        k++;
        e0 = k + (k < n && (s[k] == '+' || s[k] == '-'));
        for (k = e0; k < n && is_digit(s[k]); k++)
            ;
        frac = k > e0;
    }
    if (k == n && frac) {
        char buf[256];
        t->kind = T_FLOAT;
        if (n >= sizeof buf) {
            lex_err(p, t->loc, "number literal '%.*s...' is too long", TXT(t)), t->bad = 1;
            return;
        }
        memcpy(buf, s, n);
        buf[n] = 0;
        errno = 0;
        t->f = strtod(buf, NULL);
        if (errno == ERANGE && isinf(t->f))
            lex_err(p, t->loc, "float literal '%.*s' is out of range", TXT(t)), t->bad = 1, t->f = 0;
        return;
    }
word:
    t->kind = T_WORD;
    if (neg)
        lex_err(p, t->loc, "malformed number '%.*s'", TXT(t)), t->kind = T_INT, t->bad = 1;
}

static void lex_string(P *p, Tok *t)
{
    p->str.len = 0;
    skip_n(p, 1);
    for (int c; (c = at(p, 0)) != '"'; ) {
        if (c < 0 || c == '\n') {
            lex_err(p, t->loc, "unterminated string");
            break;
        }
        char ch = (char)c;
        if (c == '\\') {
            int e = at(p, 1);
            ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == '"' ? '"' : e == '\\' ? '\\' : 0;
            if (!ch && (e < 0 || e == '\n')) {
                skip_n(p, 1);
                continue;
            }
            if (!ch)
                lex_err(p, (TirLoc){p->line, p->col}, "unknown escape in string; use \\\", \\\\, \\n or \\t");
            skip_n(p, 2);
        } else {
            if (c < 0x20 || c == 0x7f)
                lex_err(p, (TirLoc){p->line, p->col}, "control character in string; use \\n or \\t");
            skip_n(p, 1);
        }
        if (ch)
            sb_putn(&p->str, &ch, 1);
    }
    if (at(p, 0) == '"')
        skip_n(p, 1);
    if (p->str.oom)
        lex_oom(p);
    t->n = (size_t)(p->src + p->pos - t->s);
}

const TirDefine *lex_define_find(const TirDefines *defs, const char *s, size_t n)
{
    for (int k = 0; defs && k < defs->n; k++)
        if (strlen(defs->d[k].name) == n && !memcmp(defs->d[k].name, s, n))
            return &defs->d[k];
    return NULL;
}

void lex_next(P *p)
{
    static const char punct[] = "(){}[]<>,:=";
    static const int pkind[] = {T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_LBRACK, T_RBRACK, T_LT, T_GT,
                                T_COMMA, T_COLON, T_EQ};
    Tok t = {0};
    int bad = p->bad; /* a lexical error does not fail the current statement */
    p->lexing = 1;
    p->prev_end = (TirLoc){p->line, p->col};
    p->ntok++;
    for (;;) {
        int c;
        while ((c = at(p, 0)) >= 0) {
            if (c == '\n')
                p->pos++, p->line++, p->col = 1, p->bol = 1;
            else if (c == ' ' || c == '\t' || c == '\r')
                skip_n(p, 1);
            else if (c == '/' && at(p, 1) == '/')
                while (at(p, 0) >= 0 && at(p, 0) != '\n')
                    skip_n(p, 1);
            else
                break;
        }
        t = (Tok){.kind = T_EOF, .s = p->src + p->pos, .loc = {p->line, p->col}, .nl = (uint8_t)p->bol};
        if (c < 0 || p->stop) break;
        const char *pc = c ? strchr(punct, c) : NULL;
        if (pc) {
            t.kind = pkind[pc - punct], t.n = 1;
            skip_n(p, 1);
            break;
        }
        if (c == '%' || c == '@') {
            size_t n = 1;
            while (is_name_char(at(p, n)))
                n++;
            skip_n(p, n);
            if (n == 1) {
                lex_err(p, t.loc, "expected a name after '%c'", c);
                continue;
            }
            t.kind = c == '%' ? T_VALUE : T_KNAME, t.s++, t.n = n - 1;
            if (t.n > 1024)
                lex_err(p, t.loc, "name '%.*s...' is longer than 1024 characters", TXT(&t));
            break;
        }
        if (c == '"') {
            t.kind = T_STRING;
            lex_string(p, &t);
            break;
        }
        if (c == '$') { /* $NAME or ${NAME}: a defined integer */
            int brace = at(p, 1) == '{';
            size_t n = 1 + (size_t)brace, n0 = n;
            while (is_alpha(at(p, n)) || is_digit(at(p, n)))
                n++;
            size_t len = n - n0;
            if (brace && at(p, n) == '}')
                n++;
            else if (brace)
                len = 0; /* unclosed */
            skip_n(p, n);
            if (len == 0) {
                lex_err(p, t.loc, brace ? "expected a name and '}' after '${'" : "expected a name after '$'");
                continue;
            }
            const TirDefine *d = lex_define_find(p->defs, t.s + n0, len);
            if (!d) {
                lex_err(p, t.loc, "'$%.*s' is not defined (define it with -D%.*s=VALUE)", (int)len, t.s + n0, (int)len,
                        t.s + n0);
                continue;
            }
            t.kind = T_INT, t.i = d->value, t.s = d->text, t.n = strlen(d->text);
            break;
        }
        if (is_digit(c) || is_alpha(c) || (c == '-' && (is_digit(at(p, 1)) || is_alpha(at(p, 1))))) {
            /* words and numbers: [A-Za-z0-9_.-]+, and '+' in a digit run's exponent */
            size_t n = 1;
            for (int d; (d = at(p, n)) >= 0 && (is_name_char(d) || d == '-' ||
                        (d == '+' && !is_alpha(c) && (at(p, n - 1) | 32) == 'e')); n++)
                ;
            skip_n(p, n);
            t.n = n, t.kind = T_WORD;
            if (is_digit(c) || (c == '-' && is_digit(t.s[1])))
                lex_number(p, &t);
            else if (text_is(&t, "inf") || text_is(&t, "-inf") || text_is(&t, "nan"))
                t.kind = T_FLOAT, t.f = t.s[0] == 'n' ? NAN : t.s[0] == '-' ? -INFINITY : INFINITY;
            else if (c == '-') {
                lex_err(p, t.loc, "unexpected '%.*s'", TXT(&t));
                continue;
            }
            break;
        }
        /* a run of bytes that cannot start a token: one error for all */
        size_t n = 1;
        for (int d; (d = at(p, n)) >= 0 && !(d && strchr(" \t\r\n%@\"-/(){}[]<>,:=", d)) && !is_name_char(d);)
            n++;
        if (c >= 0x21 && c < 0x7f)
            lex_err(p, t.loc, "unexpected character '%c'", c);
        else
            lex_err(p, t.loc, "unexpected byte 0x%02x", (unsigned)c);
        skip_n(p, n);
    }
    p->lbrace = (t.nl ? 0 : p->lbrace) + (t.kind == T_LBRACE) - (t.kind == T_RBRACE);
    p->bol = 0, p->cur = t, p->bad = bad, p->lexing = 0;
}

/* ---- literal values ---- */

#define FAIL(...) return lex_err(p, __VA_ARGS__), 0

/* The value of literal t as element type e: integer bits in *iv, float
 * (rounded to f32, the widest float) in *fv. A hexadecimal literal where a
 * float is expected is the f32 bit pattern. */
int lex_lit_value(P *p, const Tok *t, TirElem e, int64_t *iv, double *fv)
{
    *iv = 0, *fv = 0;
    if (t->bad || e == ELEM_NONE) return 1;
    if (!tir_elem_is_float(e)) {
        int64_t v = t->i;
        if (t->kind != T_INT) FAIL(t->loc, "expected an integer for %s, got '%.*s'", tir_elem_name(e), TXT(t));
        if (e == ELEM_I32 && t->hex && (uint64_t)v > 0xffffffffu)
            FAIL(t->loc, "'%.*s' does not fit in 32 bits", TXT(t));
        if (e == ELEM_I32 && t->hex)
            v = v > INT32_MAX ? v - 0x100000000LL : v;
        else if (e == ELEM_I32 && (v < INT32_MIN || v > INT32_MAX))
            FAIL(t->loc, "integer %lld does not fit in i32", (long long)v);
        *iv = v, *fv = (double)v;
        return 1;
    }
    if (t->kind == T_INT && t->hex) {
        if ((uint64_t)t->i > 0xffffffffu)
            FAIL(t->loc, "hexadecimal float literal '%.*s' must be a 32-bit pattern", TXT(t));
        *fv = tir_f32_value((uint32_t)t->i);
        return 1;
    }
    double x = t->kind == T_INT ? (double)t->i : t->f;
    if (isfinite(x) && fabs(x) >= 0x1.ffffffp127) /* rounds to inf as f32 */
        FAIL(t->loc, "'%.*s' is out of range for f32", TXT(t));
    *fv = (double)(float)x;
    return 1;
}

/* full and padding of an integer tile keep the value in a double: it must
 * be exact there. */
int lex_lit_fval(P *p, const Tok *t, TirElem e, double *fv)
{
    int64_t iv;
    if (!lex_lit_value(p, t, e, &iv, fv)) return 0;
    if (!tir_elem_is_float(e) && !t->bad && (*fv >= 9223372036854775808.0 || (int64_t)*fv != iv))
        FAIL(t->loc, "integer %lld cannot be held exactly here (values are stored as doubles)", (long long)iv);
    return 1;
}
