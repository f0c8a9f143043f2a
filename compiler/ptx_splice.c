/*
 * Puts a function's PTX body into an entry's PTX, at a marker line: how the
 * producers of a persistent pipeline, lowered, optimized and emitted as a
 * function in an LLVM module of their own (-frole-functions,
 * lower_programs.c; on a thread beside the entry's, compiler/entries.c),
 * end up inside the kernel that ptxas sees. Not as a call: ptxas keeps
 * registers for the ABI around one (the 128x256 pipeline's consumers then
 * spilled 856 bytes, C7512: their wgmmas serialized) and serializes the
 * wgmmas of a function that a call reaches (C7510).
 *
 * The body goes in as a block of its own: its registers renamed (%r12 ->
 * %Pr12, declared in that block), its labels too ($L__ -> $L__P), its
 * parameters read as the entry's (the function has the entry's parameters
 * in the same order: <fn>_param_<i> -> <entry>_param_<i>; a tensor map's
 * address it takes from the entry's parameter itself, lw_tmap_addr), and
 * its `ret` ends the thread, as the entry does after the marker.
 *
 * Needs: LLVM NVPTX's PTX (its virtual register classes, %p %rs %r %rd %rq
 * %f %fd, and the older %h %hh; a definition `.visible .func <fn>(`; the
 * body's closing brace the first "}" in column 0), the marker (TC_SPLICE_MARK fn)
 * once in the entry, a function without a stack (no __local_depot).
 * Guarantees: the entry's PTX with the body in place of the marker and no
 * other change, or NULL and *why.
 */
#include "compiler/compiler.h"

#include <stdlib.h>
#include <string.h>

static const char *const reg_classes[] = {"p", "rs", "r", "rd", "rq", "f", "fd", "h", "hh"};

static int ident(char c)
{
    return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void put_renamed(StrBuf *out, const char *b, const char *e, const char *fn, const char *entry)
{
    const char *start = b;
    size_t fl = strlen(fn), pl = fl + strlen("_param_");
    while (b < e) {
        if (*b == '%') {
            const char *q = b + 1;
            while (q < e && *q >= 'a' && *q <= 'z')
                q++;
            int reg = 0;
            if (q < e && ((*q >= '0' && *q <= '9') || *q == '<'))
                for (size_t k = 0; k < sizeof reg_classes / sizeof reg_classes[0] && !reg; k++)
                    reg = strlen(reg_classes[k]) == (size_t)(q - b - 1) && !strncmp(b + 1, reg_classes[k], q - b - 1);
            if (reg) {
                sb_puts(out, "%P");
                sb_putn(out, b + 1, (size_t)(q - b - 1));
                b = q;
                continue;
            }
        } else if (*b == '$' && e - b >= 4 && !strncmp(b, "$L__", 4)) {
            sb_puts(out, "$L__P");
            b += 4;
            continue;
        } else if ((size_t)(e - b) >= pl && !memcmp(b, fn, fl) && !memcmp(b + fl, "_param_", pl - fl) &&
                   b > start && !ident(b[-1])) {
            sb_printf(out, "%s_param_", entry);
            b += pl;
            continue;
        }
        sb_putn(out, b, 1);
        b++;
    }
}

char *tc_ptx_splice(const char *entry_ptx, size_t len, const char *fn_ptx, const char *fn, const char *entry,
                    const char **why)
{
    StrBuf pat, out;
    sb_init(&pat);
    sb_init(&out);
    char *result = NULL;
    *why = NULL;
    /* the function's body: after its definition's opening line "{", to its closing "}" */
    sb_printf(&pat, "\n.visible .func %s(", fn);
    if (pat.oom) {
        *why = "out of memory";
        goto done;
    }
    const char *def = pat.data ? strstr(fn_ptx, pat.data) : NULL;
    const char *open = def ? strstr(def, "\n{\n") : NULL;
    const char *close = open ? strstr(open, "\n}\n") : NULL;
    if (!close) {
        *why = "no definition of the function";
        goto done;
    }
    const char *body = open + 3, *body_end = close + 1, *depot = strstr(body, "__local_depot");
    if (depot && depot < body_end) {
        *why = "the function has a stack";
        goto done;
    }
    /* the marker, on a line of its own */
    const char *end = entry_ptx + len;
    pat.len = 0;
    sb_printf(&pat, "\t" TC_SPLICE_MARK "%s\n", fn);
    const char *mark = pat.data ? strstr(entry_ptx, pat.data) : NULL;
    if (pat.oom) {
        *why = "out of memory";
        goto done;
    }
    if (!mark || mark + pat.len > end || strstr(mark + 1, pat.data)) {
        *why = "not one marker for the function's body";
        goto done;
    }
    sb_putn(&out, entry_ptx, (size_t)(mark - entry_ptx));
    sb_puts(&out, "\t{ // the body of ");
    sb_puts(&out, fn);
    sb_puts(&out, " (compiler/ptx_splice.c)\n");
    put_renamed(&out, body, body_end, fn, entry); /* (out.oom: said below) */
    sb_puts(&out, "\t}\n");
    const char *after = mark + pat.len;
    sb_putn(&out, after, (size_t)(end - after));
    if (out.oom)
        *why = "out of memory";
    else
        result = sb_take(&out);
done:
    sb_free(&pat);
    if (!result)
        sb_free(&out);
    return result;
}
