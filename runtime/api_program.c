/*
 * The public API's programs (include/tilec.h): source in, compile with
 * options, the log, PTX and every stage's text out, the kernels' facts.
 *
 * Needs: the compiler (compiler/compiler.h). Guarantees: every entry point
 * checks its handle and returns a tilecResult; a program belongs to one
 * thread at a time; its log is never NULL.
 */
#include "tilec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "runtime/cache.h"
#include "runtime/runtime.h"

static char empty_log[1];

static void set_log(tilecProgram p, StrBuf *b)
{
    if (p->log != empty_log)
        free(p->log);
    p->log = b->oom ? NULL : sb_take(b);
    sb_free(b);
    if (!p->log)
        p->log = empty_log;
}

static void drop_result(tilecProgram p)
{
    if (p->have_result)
        tc_result_free(&p->res);
    memset(&p->res, 0, sizeof p->res);
    p->have_result = 0;
    p->compiled = 0;
    free(p->opts_str);
    p->opts_str = NULL;
}

tilecResult tilecCreateProgram(tilecProgram *prog, const char *src, size_t len, const char *name)
{
    if (!prog)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *prog = NULL;
    if (!src && len)
        return TILEC_ERROR_INVALID_ARGUMENT;
    tilecProgram p = calloc(1, sizeof *p);
    if (!p)
        return TILEC_ERROR_OUT_OF_MEMORY;
    p->log = empty_log;
    p->src = malloc(len + 1);
    p->name = name ? strdup(name) : NULL;
    if (!p->src || (name && !p->name)) {
        free(p->src);
        free(p->name);
        free(p);
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    if (len)
        memcpy(p->src, src, len);
    p->src[len] = 0;
    p->len = len;
    *prog = p;
    return TILEC_SUCCESS;
}

tilecResult tc_parse_options(int nopts, const char *const *opts, TcOptions *o, StrBuf *log)
{
    tc_options_default(o);
    if (nopts < 0 || (nopts > 0 && !opts)) {
        sb_puts(log, "error: invalid option list (negative count or NULL array)\n");
        return TILEC_ERROR_INVALID_ARGUMENT;
    }
    tilecResult t = TILEC_SUCCESS;
    for (int i = 0; i < nopts; i++) {
        if (!opts[i]) {
            sb_printf(log, "error: option %d is NULL\n", i);
            t = TILEC_ERROR_INVALID_OPTION;
            continue;
        }
        size_t before = log->len;
        if (tc_option_parse(o, opts[i], log) != 0) {
            if (log->len == before)
                sb_printf(log, "error: invalid option '%s'", opts[i]);
            if (log->len && log->data[log->len - 1] != '\n')
                sb_puts(log, "\n");
            t = TILEC_ERROR_INVALID_OPTION;
        }
    }
    return t;
}

/* "kernels/gemm.tir" -> "gemm"; anything odd becomes '_' */
static void dump_base(const char *name, char *out, size_t size)
{
    const char *s = name && name[0] ? name : "program";
    const char *slash = strrchr(s, '/');
    if (slash && slash[1])
        s = slash + 1;
    size_t n = strlen(s);
    if (n > 4 && !strcmp(s + n - 4, ".tir"))
        n -= 4;
    if (n > size - 1)
        n = size - 1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                 c == '-' || (c == '.' && i > 0);
        out[i] = ok ? c : '_';
    }
    out[n] = 0;
}

enum { DUMP_TIR = 1, DUMP_PASSES = 2, DUMP_LLVM = 4, DUMP_PTX = 8 };

/* The stages TILEC_DUMP asks for; unknown words are noted in log. */
static unsigned dump_mask(StrBuf *log)
{
    const char *s = getenv("TILEC_DUMP");
    unsigned m = 0;
    while (s && *s) {
        size_t n = strcspn(s, ",");
        if (n == 3 && !strncmp(s, "tir", 3))
            m |= DUMP_TIR;
        else if (n == 6 && !strncmp(s, "passes", 6))
            m |= DUMP_PASSES;
        else if (n == 4 && !strncmp(s, "llvm", 4))
            m |= DUMP_LLVM;
        else if (n == 3 && !strncmp(s, "ptx", 3))
            m |= DUMP_PTX;
        else if (n == 3 && !strncmp(s, "all", 3))
            m |= DUMP_TIR | DUMP_PASSES | DUMP_LLVM | DUMP_PTX;
        else if (n)
            sb_printf(log, "note: TILEC_DUMP: unknown stage '%.*s' (tir, passes, llvm, ptx, all)\n", (int)n, s);
        s += n;
        if (*s == ',')
            s++;
    }
    return m;
}

/* Writes the stages of mask that exist as <dir>/<base>.<hash8>.<ext>. */
static void dump_stages(tilecProgram p, unsigned mask, StrBuf *log)
{
    static const struct {
        unsigned bit;
        const char *ext;
        size_t off;
    } stages[] = {
        {DUMP_TIR, "tir", offsetof(TcResult, tir)},
        {DUMP_PASSES, "passes.tir", offsetof(TcResult, tir_passes)},
        {DUMP_LLVM, "ll", offsetof(TcResult, llvm_ir)},
        {DUMP_PTX, "ptx", offsetof(TcResult, ptx)},
    };
    const char *dir = getenv("TILEC_DUMP_DIR");
    if (!dir || !dir[0])
        dir = ".";
    /* the hash tells apart the same program compiled with other options */
    uint8_t h[32];
    TcSha256 s;
    tc_sha256_init(&s);
    tc_sha256_update(&s, p->src, p->len);
    tc_sha256_update(&s, "", 1);
    tc_sha256_update(&s, p->opts_str ? p->opts_str : "", p->opts_str ? strlen(p->opts_str) : 0);
    tc_sha256_final(&s, h);
    char hash[9], base[128];
    tc_hex(h, 4, hash);
    dump_base(p->name, base, sizeof base);
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        const char *text = *(char *const *)((const char *)&p->res + stages[i].off);
        if (!(mask & stages[i].bit) || !text || !text[0])
            continue;
        StrBuf path;
        sb_init(&path);
        sb_printf(&path, "%s/%s.%s.%s", dir, base, hash, stages[i].ext);
        if (path.oom)
            break;
        FILE *f = fopen(path.data, "w");
        int ok = f && fputs(text, f) >= 0;
        int err = errno;
        if (f && fclose(f) != 0 && ok) {
            ok = 0;
            err = errno;
        }
        if (!ok)
            sb_printf(log, "note: TILEC_DUMP: cannot write %s: %s\n", path.data, strerror(err));
        sb_free(&path);
    }
}

/* Compiles p; the log of the attempt becomes p's log. keep_llvm: print
 * the LLVM IR for tilecGetStage (a GEMM's IR takes ~5 ms to print; a
 * program compiled only to be loaded never shows it). */
tilecResult tc_compile_program(tilecProgram p, int nopts, const char *const *opts, int keep_llvm)
{
    StrBuf log;
    sb_init(&log);
    drop_result(p);
    tilecResult t = tc_parse_options(nopts, opts, &p->opts, &log);
    if (t != TILEC_SUCCESS) {
        set_log(p, &log);
        return t;
    }
    StrBuf os;
    sb_init(&os);
    tc_options_str(&p->opts, &os);
    p->opts_str = os.oom ? NULL : sb_take(&os);
    sb_free(&os);
    if (!p->opts_str) {
        sb_free(&log);
        set_log(p, &log);
        return TILEC_ERROR_OUT_OF_MEMORY;
    }
    unsigned mask = dump_mask(&log);
    /* TILEC_DUMP=passes needs the per-pass IR; the key keeps the options
     * as the user gave them, since this does not change the code */
    TcOptions o = p->opts;
    o.keep_llvm_ir = keep_llvm || (mask & DUMP_LLVM);
    if ((mask & DUMP_PASSES) && !o.dump_after)
        o.dump_after = ~0u;
    int rc = tc_compile(p->name ? p->name : "<input>", p->src, p->len, &o, &p->res, &log);
    p->have_result = 1;
    p->compiled = rc == 0;
    if (mask)
        dump_stages(p, mask, &log);
    t = rc == 0 ? TILEC_SUCCESS : log.oom ? TILEC_ERROR_OUT_OF_MEMORY : TILEC_ERROR_COMPILATION;
    set_log(p, &log);
    return t;
}

tilecResult tilecCompileProgram(tilecProgram prog, int nopts, const char *const *opts)
{
    if (!prog)
        return TILEC_ERROR_INVALID_ARGUMENT;
    return tc_compile_program(prog, nopts, opts, 1);
}

tilecResult tilecGetProgramLog(tilecProgram prog, const char **log)
{
    if (!prog || !log)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *log = prog->log;
    return TILEC_SUCCESS;
}

tilecResult tilecGetPTX(tilecProgram prog, const char **ptx, size_t *size)
{
    if (!prog || !ptx)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *ptx = NULL;
    if (size)
        *size = 0;
    if (!prog->compiled || !prog->res.ptx)
        return TILEC_ERROR_INVALID_STATE;
    *ptx = prog->res.ptx;
    if (size)
        *size = strlen(prog->res.ptx); /* without the terminating NUL */
    return TILEC_SUCCESS;
}

/* Stages are available after a failed compile too, as far as it got. */
tilecResult tilecGetStage(tilecProgram prog, tilecStage stage, const char **text)
{
    if (!prog || !text)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *text = NULL;
    const char *s;
    switch (stage) {
    case TILEC_STAGE_TIR_INPUT: s = prog->res.tir_input; break;
    case TILEC_STAGE_TIR: s = prog->res.tir; break;
    case TILEC_STAGE_TIR_PASSES: s = prog->res.tir_passes; break;
    case TILEC_STAGE_LLVM: s = prog->res.llvm_ir; break;
    case TILEC_STAGE_PTX: s = prog->res.ptx; break;
    default: return TILEC_ERROR_INVALID_ARGUMENT;
    }
    if (!prog->have_result || !s)
        return TILEC_ERROR_INVALID_STATE;
    *text = s;
    return TILEC_SUCCESS;
}

tilecResult tilecDestroyProgram(tilecProgram *prog)
{
    if (!prog || !*prog)
        return TILEC_ERROR_INVALID_ARGUMENT;
    tilecProgram p = *prog;
    drop_result(p);
    if (p->log != empty_log)
        free(p->log);
    free(p->src);
    free(p->name);
    free(p);
    *prog = NULL;
    return TILEC_SUCCESS;
}

tilecResult tilecGetKernelCount(tilecProgram prog, unsigned *count)
{
    if (!prog || !count)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *count = 0;
    if (!prog->compiled)
        return TILEC_ERROR_INVALID_STATE;
    *count = prog->res.nkernels;
    return TILEC_SUCCESS;
}

tilecResult tilecGetKernelInfo(tilecProgram prog, unsigned index, tilecKernelInfo *info)
{
    if (!prog || !info)
        return TILEC_ERROR_INVALID_ARGUMENT;
    if (!prog->compiled)
        return TILEC_ERROR_INVALID_STATE;
    if (index >= prog->res.nkernels)
        return TILEC_ERROR_INVALID_ARGUMENT;
    const TcKernelInfo *k = &prog->res.kernels[index];
    info->name = k->name;
    info->threads = k->threads;
    info->shared_bytes = k->shared_bytes;
    memcpy(info->grid, k->grid, sizeof info->grid);
    info->nparams = k->nparams;
    return TILEC_SUCCESS;
}
