/*
 * Fuzz target: the embedding API's option parsing (tilecCompileProgram),
 * and the runtime's (tc_settings_init: tilecRuntimeCreateWithOptions'
 * settings, called directly so that no runtime or cache directory is made
 * where a driver is present).
 *
 * The input is a list of option strings separated by newlines (a NUL byte
 * inside a line ends that option early, as it would in C). Most inputs are
 * compiled against a source with a syntax error, so the compile stops right
 * after the options were parsed and canonicalized; one input in eight gets
 * a tiny valid kernel instead and goes through the whole pipeline, so that
 * every option also reaches the stage that reads it. Invariants: an option
 * error comes with a log, a success with PTX, and the log is always there;
 * the runtime's settings fail with an error in the log or hold what a
 * success promises (a ptxas only where one was found, switches in range).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/settings.h"
#include "tilec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_OPTS = 64 };

static const char VALID[] = "kernel @k(%x: ptr<f32>) warps(1) {\n"
                            "  %v = view %x [1, 32] strides [32, 1]\n"
                            "  %t = load %v[0, 0] : tile<1x32xf32>\n"
                            "  %z = zeros : tile<32x32xf32>\n"
                            "  store %t, %v[0, 0]\n"
                            "}\n";
static const char BROKEN[] = "kernel @k( {\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    const char *opts[MAX_OPTS];
    int n = 0;
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    int valid = size && (data[0] & 7) == 0;
    for (char *s = buf + (size ? 1 : 0); n < MAX_OPTS && s <= buf + size;) {
        char *nl = memchr(s, '\n', (size_t)(buf + size - s));
        if (nl)
            *nl = 0;
        opts[n++] = s;
        if (!nl)
            break;
        s = nl + 1;
    }
    tilecProgram p = NULL;
    const char *src = valid ? VALID : BROKEN;
    if (tilecCreateProgram(&p, src, strlen(src), "fuzz.tir") != TILEC_SUCCESS)
        abort();
    tilecResult r = tilecCompileProgram(p, n, opts);
    const char *log = NULL, *ptx = NULL;
    if (tilecGetProgramLog(p, &log) != TILEC_SUCCESS || !log)
        abort();
    if (r == TILEC_ERROR_INVALID_OPTION && !strstr(log, "error"))
        abort(); /* an option error must say what was wrong */
    if (r == TILEC_SUCCESS && (tilecGetPTX(p, &ptx, NULL) != TILEC_SUCCESS || !ptx || !strstr(ptx, ".entry")))
        abort();
    if (r != TILEC_SUCCESS && r != TILEC_ERROR_INVALID_OPTION && r != TILEC_ERROR_COMPILATION)
        abort();
    if (!valid && r == TILEC_SUCCESS)
        abort();
    const char *text;
    for (int s = TILEC_STAGE_TIR_INPUT; s <= TILEC_STAGE_PTX; s++)
        (void)tilecGetStage(p, (tilecStage)s, &text);
    tilecDestroyProgram(&p);

    StrBuf slog;
    sb_init(&slog);
    TcSettings st;
    int oom = 0;
    if (tc_settings_init(&st, n, opts, &slog, &oom) == 0) {
        if (st.stage < TC_SWITCH_AUTO || st.stage > TC_SWITCH_ALWAYS || st.preround < TC_SWITCH_AUTO ||
            st.preround > TC_SWITCH_ALWAYS || st.persist_blocks > 65535 || st.tune_jobs > 1024 ||
            (st.cache_dir && !st.cache_dir[0]))
            abort();
        tc_settings_free(&st);
    } else if (!oom && (!slog.data || !strstr(slog.data, "error")))
        abort(); /* a refused option must say why */
    sb_free(&slog);
    free(buf);
    return 0;
}
